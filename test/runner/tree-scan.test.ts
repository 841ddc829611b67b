// The built-in secret scan as the runner runs it after the builder: the committed tree's git
// objects, never the file system (a symlink is not followed), in `forge scan-secrets`' format.
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBuiltinControls } from "../../src/runner/controls-exec.js";
import { scanCommittedTree } from "../../src/runner/tree-scan.js";
import { gitIn, makeRepo, tempDir, writeFiles } from "../helpers/git-repo.js";
import { fake } from "../secrets/fake-secrets.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function repo(files: Record<string, string>): string {
  const t = tempDir("forge-tree-scan-");
  cleanups.push(t.cleanup);
  makeRepo(t.dir, files);
  return t.dir;
}

function commitAll(dir: string): void {
  gitIn(dir, "add", "-A");
  gitIn(dir, "commit", "-q", "-m", "more");
}

describe("scanCommittedTree", () => {
  it("passes a clean tree and counts its tracked files", async () => {
    const dir = repo({ "a.txt": "hello\n", "src/b.ts": "export const b = 1;\n" });
    expect(await scanCommittedTree(dir)).toEqual({
      exitCode: 0,
      output: "2 tracked files scanned, 0 secret(s) found\n",
    });
  });

  it("finds a committed token with its file and line, masked", async () => {
    const token = fake.githubToken();
    const dir = repo({ "a.txt": "hello\n", "conf/deploy.env.example": `x=1\ntoken=${token}\n` });
    const r = await scanCommittedTree(dir);
    expect(r.exitCode).toBe(1);
    expect(r.output).toMatch(/^conf\/deploy\.env\.example:2: github: /m);
    expect(r.output).toContain("2 tracked files scanned, 1 secret(s) found");
    expect(r.output).not.toContain(token);
  });

  it("reads what is committed: not an uncommitted edit, not a symlink's target", async () => {
    const outside = tempDir("forge-tree-scan-outside-");
    cleanups.push(outside.cleanup);
    writeFileSync(join(outside.dir, "host-secret.txt"), `token=${fake.githubToken()}\n`);
    const dir = repo({ "a.txt": "hello\n" });
    symlinkSync(join(outside.dir, "host-secret.txt"), join(dir, "linked.txt"));
    commitAll(dir);
    // In the working tree only (the runner commits first; this edit is not the builder's work).
    writeFileSync(join(dir, "a.txt"), `token=${fake.githubToken()}\n`);
    const r = await scanCommittedTree(dir);
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe("2 tracked files scanned, 0 secret(s) found\n");
  });

  it("scans the committed blob, not the one refs/replace/ puts in its place", async () => {
    const dir = repo({ "a.txt": "hello\n", "deploy.txt": `token=${fake.githubToken()}\n` });
    const real = gitIn(dir, "rev-parse", "HEAD:deploy.txt").trim();
    const benign = gitIn(dir, "rev-parse", "HEAD:a.txt").trim();
    gitIn(dir, "replace", real, benign);
    const r = await scanCommittedTree(dir);
    expect(r.exitCode).toBe(1);
    expect(r.output).toMatch(/^deploy\.txt:1: github: /m);
  });

  it("skips binary files, names files over 2 MiB, and scans only below its directory", async () => {
    const dir = repo({ "a.txt": "hello\n" });
    writeFileSync(
      join(dir, "blob.bin"),
      Buffer.from([0, 1, 2, ...Buffer.from(fake.githubToken())]),
    );
    writeFileSync(join(dir, "big.txt"), "x".repeat(2 * 1024 * 1024 + 1));
    writeFiles(dir, { "pkg/inner.txt": `token=${fake.githubToken()}\n` });
    commitAll(dir);
    const top = await scanCommittedTree(dir);
    expect(top.output).toMatch(/^pkg\/inner\.txt:1: github: /m);
    expect(top.output).toContain("skipped big.txt (over 2097152 bytes)");
    expect(top.output).not.toContain("blob.bin");
    const inner = await scanCommittedTree(join(dir, "pkg"));
    expect(inner.output).toMatch(/^inner\.txt:1: github: /m);
    expect(inner.output).toContain("1 tracked files scanned, 1 secret(s) found");
  });

  it("reads many files in more than one batch of objects", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`f${i}.txt`] = `${"line\n".repeat(50 + i)}`;
    files["m.txt"] = `x\ntoken=${fake.githubToken()}\n`;
    files["z.txt"] = `${"y\n".repeat(3)}token=${fake.githubToken()}\n`;
    const dir = repo(files);
    // Every object in a batch of its own: each batch's output is parsed on its own.
    const r = await scanCommittedTree(dir, { batchBytes: 1 });
    expect(r.output).toMatch(/^m\.txt:2: github: /m);
    expect(r.output).toMatch(/^z\.txt:4: github: /m);
    expect(r.output).toContain("8 tracked files scanned, 2 secret(s) found");
    expect(await scanCommittedTree(dir, { batchBytes: 300 })).toEqual(r);
  });
});

describe("runBuiltinControls", () => {
  it("reports the scan as the control's result, and a tree it cannot read as a failure", async () => {
    const dir = repo({ "a.txt": `token=${fake.githubToken()}\n` });
    const [found] = await runBuiltinControls(
      [
        {
          id: "security",
          name: "security",
          run: "forge:secret-scan",
          cwd: ".",
          advisory: true,
          origin: "floor",
        },
      ],
      { repo: dir, commit: gitIn(dir, "rev-parse", "HEAD") },
    );
    expect(found).toMatchObject({ id: "security", advisory: true, exitCode: 1 });
    expect(found?.output).toMatch(/^a\.txt:1: github: /m);
    const [missing] = await runBuiltinControls(
      [
        {
          id: "security",
          name: "security",
          run: "forge:secret-scan",
          cwd: "gone",
          advisory: false,
          origin: "floor",
        },
      ],
      { repo: dir, commit: gitIn(dir, "rev-parse", "HEAD") },
    );
    expect(missing?.exitCode).toBe(2);
    expect(missing?.output).toMatch(/^forge:secret-scan: /);
  });
});
