// Attack 3 of the security issue (committed secrets through git objects), as a real chain: the
// real claude binary in real bwrap boxes, a scripted model, real git. The repository commits
// `.env` (an older value only in history, the current one in HEAD), `config/secrets/db.txt` and
// `certs/server.pem`, each carrying a canary. The architect and the reviewer ask for them every
// way git and the tools allow: `git show HEAD:.env`, `git log -p`, `git show <blob id>`,
// `git cat-file`, `git diff <empty tree> HEAD`, `git log -p -- '*nv'`, `git grep`, and Read,
// Grep and Glob on the paths.
// Properties: no model request carries a committed secret, in plain text or encoded; and the
// builder's work still lands on the real base — the pushed branch keeps the secret files as
// committed (the agents' view without them is not what gets pushed).

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import { gitIn, writeFiles } from "../helpers/git-repo.js";
import { useModelServer, withRole } from "../runner/chain-helpers.js";
import {
  type AttackRun,
  architectPass,
  bash,
  forgeBranches,
  foundIn,
  GREET_SH,
  leakingCalls,
  newCanary,
  oneByOne,
  outcome,
  read,
  requestText,
  reviewPass,
  runAttack,
} from "./security-kit.js";

const server = useModelServer();

const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

const canary = {
  envOld: newCanary("ENVOLD"),
  env: newCanary("ENV"),
  db: newCanary("DB"),
  pem: newCanary("PEM"),
};

const files = {
  envOld: `TOKEN=${canary.envOld}\n`,
  env: `TOKEN=${canary.env}\n`,
  db: `DB_PASSWORD=${canary.db}\n`,
  pem: `-----BEGIN FAKE TEST KEY-----\n${canary.pem}\n-----END FAKE TEST KEY-----\n`,
};

/** git's blob id of `content` (what `git hash-object` prints). */
function blobId(content: string): string {
  const body = Buffer.from(content, "utf8");
  return createHash("sha1")
    .update(Buffer.concat([Buffer.from(`blob ${body.length}\0`), body]))
    .digest("hex");
}

/** Three commits on the demo project: the secrets, a rotated .env, an unrelated change. */
function commitSecrets(repo: string): void {
  writeFiles(repo, {
    ".env": files.envOld,
    "config/secrets/db.txt": files.db,
    "certs/server.pem": files.pem,
  });
  gitIn(repo, "add", "-A");
  gitIn(repo, "commit", "-qm", "add the configuration");
  writeFiles(repo, { ".env": files.env });
  gitIn(repo, "commit", "-qam", "rotate the token");
  writeFiles(repo, { "docs/notes.md": "Notes.\n" });
  gitIn(repo, "add", "-A");
  gitIn(repo, "commit", "-qm", "notes");
}

const gitLooks = [
  "git show HEAD:.env",
  "git show HEAD:config/secrets/db.txt",
  "git log -p",
  "git log -p --all -- '*nv'",
  `git show ${blobId(files.env)}`,
  `git show ${blobId(files.envOld)}`,
  `git show ${blobId(files.db)}`,
  `git show ${blobId(files.pem)}`,
  `git cat-file -p ${blobId(files.env)}`,
  `git diff ${EMPTY_TREE} HEAD`,
  "git grep FORGE_CANARY",
  "git grep -h TOKEN HEAD~1",
];

const toolLooks = [
  read(".env"),
  read("config/secrets/db.txt"),
  read("certs/server.pem"),
  { name: "Grep", input: { pattern: "FORGE_CANARY", output_mode: "content" } },
  { name: "Grep", input: { pattern: "FORGE_CANARY", path: "config", output_mode: "content" } },
  { name: "Glob", input: { pattern: "**/*.pem" } },
];

let r: AttackRun;

beforeAll(async () => {
  const script = withRole(
    "architect",
    [...oneByOne([...gitLooks.map(bash), ...toolLooks]), architectPass()],
    withRole("reviewer", [...oneByOne(gitLooks.slice(0, 8).map(bash)), reviewPass()], demoScript()),
  );
  r = await runAttack(server, script, { setupRepo: commitSecrets });
}, 120_000);

afterAll(async () => {
  await r?.f.cleanup();
});

describe("no committed secret reaches an agent (attack 3)", () => {
  it("no model request carries a committed secret, in plain text or encoded", () => {
    // The attack was tried: the read-only roles' git calls were answered.
    expect(server.toolResults.some((t) => t.input?.command === "git log -p")).toBe(true);
    const asked = requestText(server);
    const why = outcome(r);
    for (const [name, value] of Object.entries(canary)) {
      const by = leakingCalls(server, value).join(" | ");
      expect.soft(foundIn(asked, value), `${name} reached the model (${by}); ${why}`).toEqual([]);
    }
  });

  it("the builder's work lands on the real base: the pushed branch keeps the secret files as committed", () => {
    const [branch] = forgeBranches(r.f.repo);
    expect(branch, outcome(r)).toBeDefined();
    const show = (path: string) =>
      execFileSync("git", ["show", `${branch}:${path}`], { cwd: r.f.repo, encoding: "utf8" });
    expect(show(".env")).toBe(files.env);
    expect(show("config/secrets/db.txt")).toBe(files.db);
    expect(show("certs/server.pem")).toBe(files.pem);
    expect(show("greet.sh")).toBe(GREET_SH);
    // The base the repository had, history and all, is where the work sits.
    const base = gitIn(r.f.repo, "rev-parse", "main");
    expect(() => gitIn(r.f.repo, "merge-base", "--is-ancestor", base, branch ?? "")).not.toThrow();
  });
});
