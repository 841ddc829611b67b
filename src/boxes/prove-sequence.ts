// The order a proof keeps (prove.ts): checks run one after another, and a check whose
// prerequisite failed is recorded as skipped instead of run — so each cause is reported once,
// with its fix, rather than again by everything downstream of it. Apart from prove.ts because
// this bookkeeping is the same for every check, whatever it proves.
import type { ProveCheck } from "./prove-types.js";

export function createCheckSequence(onCheck?: (check: ProveCheck) => void) {
  const checks: ProveCheck[] = [];
  const failed = new Set<string>();
  const add = (c: ProveCheck) => {
    checks.push(c);
    if (!c.ok) failed.add(c.name);
    onCheck?.(c);
  };
  /** Run `fn` unless a check it needs failed; then record it as skipped. */
  const step = async (
    name: string,
    needs: string[],
    fn: () => Promise<ProveCheck> | ProveCheck,
  ) => {
    const blocker = needs.find((n) => failed.has(n));
    if (blocker) {
      add({ name, ok: false, skipped: true, detail: `not run: needs "${blocker}"`, fix: "" });
      return;
    }
    try {
      add(await fn());
    } catch (error) {
      add({ name, ok: false, detail: (error as Error).message, fix: "see the message" });
    }
  };
  return { checks, add, step };
}
