// State in the repository itself (for the packaged Action): real git, a bare repository as the
// remote. A snapshot round-trips byte for byte; a write lands only if the ref is where the
// writer read it, so of several writers racing from one read exactly one wins.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  RefStateConflict,
  RefStateError,
  readRefState,
  writeRefState,
} from "../../src/store/ref-state.js";
import { tempDir } from "../helpers/git-repo.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function remote(): { remote: string; dir: string } {
  const t = tempDir("forge-ref-state-");
  cleanups.push(t.cleanup);
  const bare = join(t.dir, "origin.git");
  execFileSync("git", ["init", "--quiet", "--bare", bare]);
  return { remote: bare, dir: t.dir };
}

const target = (
  r: { remote: string; dir: string },
  name: string,
  ref = "refs/forge/state/issue-7",
) => ({
  remote: r.remote,
  ref,
  scratch: join(r.dir, name),
});

const bytes = (text: string) => Buffer.from(text, "utf8");

describe("state under a refs/forge ref", () => {
  it("an absent ref reads as nothing; a written snapshot reads back byte for byte", async () => {
    const r = remote();
    const a = target(r, "a");
    expect(await readRefState(a)).toEqual({ oid: null, files: new Map() });
    const db = Buffer.from([0, 1, 2, 255, 10, 0, 83, 81, 76]);
    const oid = await writeRefState(
      a,
      null,
      new Map([
        ["journal.db", db],
        ["meta.json", bytes("{}")],
      ]),
      "run 1",
    );
    // Another machine with nothing on disk reads it.
    const read = await readRefState(target(r, "b"));
    expect(read.oid).toBe(oid);
    expect(read.files.get("journal.db")).toEqual(db);
    expect(read.files.get("meta.json")?.toString()).toBe("{}");
  });

  it("compare-and-swap: a writer whose read is stale loses, and the ref keeps the winner's snapshot", async () => {
    const r = remote();
    const first = await writeRefState(target(r, "w0"), null, new Map([["n", bytes("0")]]), "start");
    const [a, b] = [target(r, "a"), target(r, "b")];
    const seenA = await readRefState(a);
    const seenB = await readRefState(b);
    expect(seenA.oid).toBe(first);
    const won = await writeRefState(a, seenA.oid, new Map([["n", bytes("a")]]), "a acts");
    await expect(
      writeRefState(b, seenB.oid, new Map([["n", bytes("b")]]), "b acts"),
    ).rejects.toThrow(RefStateConflict);
    const now = await readRefState(b);
    expect(now.oid).toBe(won);
    expect(now.files.get("n")?.toString()).toBe("a");
    // The snapshot's parent is the one it replaced: an audit trail.
    const parent = execFileSync("git", ["-C", r.remote, "rev-parse", `${won}^`], {
      encoding: "utf8",
    });
    expect(parent.trim()).toBe(first);
  });

  it("creating a ref that exists is a conflict too (two first runs of one issue)", async () => {
    const r = remote();
    await writeRefState(target(r, "a"), null, new Map([["n", bytes("a")]]), "a");
    await expect(
      writeRefState(target(r, "b"), null, new Map([["n", bytes("b")]]), "b"),
    ).rejects.toThrow(RefStateConflict);
  });

  it("of five writers racing from one read, exactly one wins", async () => {
    const r = remote();
    const base = await writeRefState(target(r, "w0"), null, new Map([["n", bytes("0")]]), "start");
    const writers = [1, 2, 3, 4, 5].map((i) => target(r, `w${i}`));
    for (const w of writers) expect((await readRefState(w)).oid).toBe(base);
    const results = await Promise.allSettled(
      writers.map((w, i) =>
        writeRefState(w, base, new Map([["n", bytes(String(i))]]), `writer ${i}`),
      ),
    );
    const won = results.filter((x) => x.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const x of results) {
      if (x.status === "rejected")
        expect(x.reason, String(x.reason)).toBeInstanceOf(RefStateConflict);
    }
  }, 60_000);

  it("refuses refs outside refs/forge/, bad file names and a tree forgechain did not write", async () => {
    const r = remote();
    await expect(readRefState(target(r, "a", "refs/heads/main"))).rejects.toThrow(RefStateError);
    await expect(readRefState(target(r, "a", "refs/forge/bad..name"))).rejects.toThrow(
      RefStateError,
    );
    await expect(
      writeRefState(target(r, "a"), null, new Map([["../escape", bytes("x")]]), "x"),
    ).rejects.toThrow(/not a state file name/);
    // A ref someone else pushed with a subdirectory in it: not read as state.
    const w = tempDir("forge-ref-state-w-");
    cleanups.push(w.cleanup);
    execFileSync("git", ["init", "--quiet", w.dir]);
    execFileSync(
      "sh",
      [
        "-c",
        "mkdir sub && echo x > sub/f && git add -A && git -c user.name=t -c user.email=t@example.com commit -qm x",
      ],
      { cwd: w.dir },
    );
    execFileSync("git", ["push", "--quiet", r.remote, "HEAD:refs/forge/state/issue-7"], {
      cwd: w.dir,
    });
    await expect(readRefState(target(r, "b"))).rejects.toThrow(/did not write/);
  });
});
