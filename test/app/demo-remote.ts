// The demo project as the fake GitHub's repository OWNER/REPO: made under `root`, cloned bare
// into the git root that `startFakeGitHub` serves through git http-backend.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createDemoRepo } from "../../src/demo/demo-repo.js";
import { git } from "../../src/runner/git.js";
import { REPO_ROOT } from "../harness/claude-run.js";
import { OWNER, REPO } from "./payloads.js";

export async function demoRemote(root: string): Promise<{ gitRoot: string; bare: string }> {
  const src = join(root, "src");
  await createDemoRepo(REPO_ROOT, src);
  const gitRoot = join(root, "git");
  const bare = join(gitRoot, OWNER, `${REPO}.git`);
  mkdirSync(join(gitRoot, OWNER), { recursive: true });
  await git(["clone", "--quiet", "--bare", src, bare], { cwd: root });
  return { gitRoot, bare };
}
