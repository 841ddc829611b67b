// The diff the reviewer, the security role and the secret scan read (R5.2): computed by the
// runner, and nothing in the builder's commit can hide a file's content from it.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDiffCache, diffFromBase } from "../../src/runner/diff.js";
import { gitIn, makeRepo, tempDir } from "../helpers/git-repo.js";
import { fake } from "../secrets/fake-secrets.js";

let t: { dir: string; cleanup: () => void };
let base: string;

beforeEach(() => {
  t = tempDir("forge-diff-");
  base = makeRepo(t.dir, { "README.md": "hello\n" });
});
afterEach(() => t.cleanup());

describe("diffFromBase", () => {
  it("shows the content of a file the builder's .gitattributes marks -diff or binary", async () => {
    const token = fake.githubToken();
    writeFileSync(join(t.dir, ".gitattributes"), "creds.txt -diff\nkeys.txt binary\n");
    writeFileSync(join(t.dir, "creds.txt"), `token=${token}\n`);
    writeFileSync(join(t.dir, "keys.txt"), "second-hidden-line\n");
    gitIn(t.dir, "add", ".");
    gitIn(t.dir, "commit", "-qm", "hide");
    const facts = await diffFromBase(t.dir, base);
    expect(facts.diff).toContain(token);
    expect(facts.diff).toContain("second-hidden-line");
    expect(facts.diff).not.toMatch(/^Binary files/m);
    expect(facts.files).toEqual([".gitattributes", "creds.txt", "keys.txt"]);
  });

  it("shows the committed content even when refs/replace/ swaps the blob for another", async () => {
    const token = fake.githubToken();
    writeFileSync(join(t.dir, "deploy.txt"), `token=${token}\n`);
    gitIn(t.dir, "add", ".");
    gitIn(t.dir, "commit", "-qm", "planted");
    const real = gitIn(t.dir, "rev-parse", "HEAD:deploy.txt").trim();
    const benign = gitIn(t.dir, "hash-object", "-w", "README.md").trim();
    gitIn(t.dir, "replace", real, benign);
    // What the push carries is the real blob; what the reviewer reads must be it too.
    expect(gitIn(t.dir, "diff", `${base}..HEAD`)).not.toContain(token);
    const facts = await diffFromBase(t.dir, base);
    expect(facts.diff).toContain(token);
  });

  it("ignores a textconv driver (the raw content, not the driver's rendering)", async () => {
    writeFileSync(join(t.dir, ".gitattributes"), "*.txt diff=mask\n");
    gitIn(t.dir, "config", "diff.mask.textconv", "sed s/./x/g");
    writeFileSync(join(t.dir, "notes.txt"), "plain words\n");
    gitIn(t.dir, "add", ".");
    gitIn(t.dir, "commit", "-qm", "mask");
    expect((await diffFromBase(t.dir, base)).diff).toContain("+plain words");
  });
});

describe("createDiffCache", () => {
  function commitChange(text: string): string {
    writeFileSync(join(t.dir, "README.md"), text);
    gitIn(t.dir, "commit", "-qam", text);
    return gitIn(t.dir, "rev-parse", "HEAD").trim();
  }

  it("gives the diff of a commit pair again without git, and a new head's diff from git", async () => {
    const head = commitChange("changed\n");
    const cache = createDiffCache();
    const first = await cache.diff(t.dir, base); // HEAD read beside the diffs
    expect(first.head).toBe(head);
    expect(first.files).toEqual(["README.md"]);
    // Without its .git the workspace cannot be diffed: only the cache can answer.
    renameSync(join(t.dir, ".git"), join(t.dir, ".git-away"));
    expect(await cache.diff(t.dir, base, head)).toEqual(first);
    await expect(cache.diff(t.dir, base, "f".repeat(40))).rejects.toThrow(/git/);
    renameSync(join(t.dir, ".git-away"), join(t.dir, ".git"));
    // A failed diff is not kept: the same pair is asked of git again.
    const other = commitChange("again\n");
    const second = await cache.diff(t.dir, base, other);
    expect(second.head).toBe(other);
    expect(second.diff).toContain("+again");
  });

  it("keeps only the last few diffs", async () => {
    const cache = createDiffCache(1);
    const h1 = commitChange("one\n");
    await cache.diff(t.dir, base, h1);
    const h2 = commitChange("two\n");
    await cache.diff(t.dir, base, h2);
    renameSync(join(t.dir, ".git"), join(t.dir, ".git-away"));
    expect((await cache.diff(t.dir, base, h2)).head).toBe(h2);
    await expect(cache.diff(t.dir, base, h1)).rejects.toThrow(/git/);
    renameSync(join(t.dir, ".git-away"), join(t.dir, ".git"));
  });
});
