/**
 * Polls a condition of a test that watches real processes (a served App, Actions jobs). On time
 * out it throws with the tail of whatever the caller can show — logs, API calls, comments —
 * because a bare "timed out" says nothing about which process got stuck.
 */
export async function waitFor<T>(
  what: string,
  fn: () => T | undefined | null | false,
  tail: () => string[],
  ms = 240_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n${tail().join("\n")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
