import type { Role } from "./role-names.js";

export type Verdict = "PASS" | "FAIL";

/** The engine's verdict on one role step, after R3.2–R3.3 were applied. */
export interface Decision {
  role: Role;
  verdict: Verdict;
  /** Why the verdict is what it is; never holds a secret in clear. */
  reasons: string[];
  /** True when the engine changed the role's own verdict (blocking finding, secret). */
  overridden: boolean;
}
