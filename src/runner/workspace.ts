// A step's workspace (laid out by step-workspace.ts from the runner's agents' repository) and
// the run's branch name.
import type { ExtraBind } from "../boxes/types.js";
import { gitLine } from "./git.js";

export interface Workspace {
  dir: string;
  /** The base the agent sees (agents.git's base commit): FORGE_BASE_REF in its box. */
  baseSha: string;
  branch: string;
  /** Paths the workspace needs bound read-only (the repository whose objects it borrows). */
  readOnly?: string[];
  /** The setup's results in it, and it again at the setup's path (setup-binds.ts). */
  binds?: ExtraBind[];
}

const MAX_SLUG = 40;

/** `forge/<issue>-<slug>`; the slug is derived from untrusted text, so it is reduced to a-z0-9-. */
export function branchName(title: string, number: number | undefined, runId: string): string {
  const slug =
    title
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, MAX_SLUG)
      .replace(/-+$/g, "") || "change";
  const prefix = number === undefined ? `local-${runId.slice(0, 8)}` : String(number);
  return `forge/${prefix}-${slug}`;
}

/** The default branch of a clone's origin (what `HEAD` of the remote points at). */
export async function remoteDefaultBranch(remote: string, cwd: string): Promise<string> {
  const out = await gitLine(["ls-remote", "--symref", "--", remote, "HEAD"], { cwd });
  const m = /^ref: refs\/heads\/(\S+)\s+HEAD/m.exec(out);
  if (!m?.[1]) throw new Error(`cannot find the default branch of ${remote}`);
  return m[1];
}
