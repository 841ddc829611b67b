// The diff the reviewer, the security role and the secret scan read (R5.2): computed by the
// runner, and nothing in the builder's commit can hide a file's content from it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diffFromBase } from "../../src/runner/diff.js";
import { gitIn, tempDir } from "../helpers/git-repo.js";
import { fake } from "../secrets/fake-secrets.js";

let t: { dir: string; cleanup: () => void };
let base: string;

beforeEach(() => {
  t = tempDir("forge-diff-");
  gitIn(t.dir, "init", "-q", "-b", "main");
  writeFileSync(join(t.dir, "README.md"), "hello\n");
  gitIn(t.dir, "add", ".");
  gitIn(t.dir, "commit", "-qm", "base");
  base = gitIn(t.dir, "rev-parse", "HEAD").trim();
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

  it("ignores a textconv driver (the raw content, not the driver's rendering)", async () => {
    writeFileSync(join(t.dir, ".gitattributes"), "*.txt diff=mask\n");
    gitIn(t.dir, "config", "diff.mask.textconv", "sed s/./x/g");
    writeFileSync(join(t.dir, "notes.txt"), "plain words\n");
    gitIn(t.dir, "add", ".");
    gitIn(t.dir, "commit", "-qm", "mask");
    expect((await diffFromBase(t.dir, base)).diff).toContain("+plain words");
  });
});
