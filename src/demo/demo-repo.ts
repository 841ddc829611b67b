import { cp, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { git } from "../runner/git.js";

/** A real git repository on `main` holding the demo project (fixtures/demo/repo). */
export async function createDemoRepo(root: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await cp(join(root, "fixtures", "demo", "repo"), dir, { recursive: true });
  await git(["init", "--quiet", "--initial-branch=main"], { cwd: dir });
  await git(["add", "-A"], { cwd: dir });
  await git(["commit", "--quiet", "-m", "demo project"], { cwd: dir });
  return (await git(["rev-parse", "HEAD"], { cwd: dir })).stdout.trim();
}
