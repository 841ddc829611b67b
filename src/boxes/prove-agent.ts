// The agent CLI a proof runs (the enforcement check) and whose credentials it checks. The box
// does not pick it: the caller passes its provider (the claude provider today), which fits this
// shape as it is.
import type { Role } from "../roles/role-names.js";

export interface ProveAgent {
  /** The credential variables the agent would get from this host environment. */
  credentialEnv(env: Record<string, string | undefined>): Record<string, string>;
  /** The agent's command line for one prompt in a role's settings. */
  buildInvocation(input: {
    prompt?: string;
    role: Role;
    readOnly: boolean;
    settingsFile?: string;
    cwd: string;
  }): { command: string; args: string[]; stdinPrompt?: (prompt: string) => string };
}
