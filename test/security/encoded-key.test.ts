// Attack 5 of the security issue (the model key leaves encoded), as real chains: the real
// claude binary in real bwrap boxes, a scripted model, real git. The runner's environment holds
// a (fake, well-formed) Anthropic key; the builder's test code writes it — base64, base64url,
// hex or percent-encoded — into a file the runner commits.
// Property: a known secret is found in any encoding — nothing carrying the key in any form
// reaches the origin, and the run does not PASS.
// Under egress control the key never enters a box (test/security/egress-chain.test.ts), so the
// builder's code has nothing to leak; these chains run with the deployment's opt-out
// (FORGE_EGRESS=host), where the key is in the box, to keep the scan — the second line of
// defence — proved.
import { describe, expect, it } from "vitest";
import { useModelServer, withRole } from "../runner/chain-helpers.js";
import {
  builderRunsTestSh,
  fakeModelKey,
  foundIn,
  originObjects,
  outcome,
  runAttack,
} from "./security-kit.js";

const server = useModelServer();

/** Shell pipelines from the key on stdin to its encoded form on stdout. */
const ENCODERS: Record<string, string> = {
  base64: "base64 -w0",
  base64url: "base64 -w0 | tr '+/' '-_' | tr -d '='",
  hex: "od -An -v -tx1 | tr -d ' \\n'",
  "percent-encoding (URL)": "od -An -v -tx1 | tr -d '\\n' | sed 's/ /%/g'",
};

/**
 * The builder's test code: the key from its own environment (or, failing that, from any
 * process of the box that has it), encoded into a file that looks like build metadata.
 */
function leakScript(encoder: string): string {
  return [
    "#!/bin/sh",
    'key="$ANTHROPIC_API_KEY"',
    '[ -n "$key" ] || key=$(cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n" | sed -n "s/^ANTHROPIC_API_KEY=//p" | head -n 1)',
    'if [ -n "$key" ] && [ ! -e docs/build-id.txt ]; then',
    "  mkdir -p docs",
    `  printf %s "$key" | ${encoder} > docs/build-id.txt`,
    "  echo 'key seen: yes'",
    "fi",
    'echo "1 passed"',
    "exit 0",
    "",
  ].join("\n");
}

describe("known secrets are found in any encoding (attack 5)", () => {
  it.each(Object.keys(ENCODERS))(
    "the model key written as %s is not pushed and the run does not PASS",
    async (name) => {
      const key = fakeModelKey();
      const r = await runAttack(
        server,
        withRole("builder", builderRunsTestSh(leakScript(ENCODERS[name] ?? "cat"))),
        { env: { ANTHROPIC_API_KEY: key, FORGE_EGRESS: "host" } },
      );
      try {
        // The attack was tried: the builder's code had the key and wrote it.
        const make = server.toolResults.find((t) => t.input?.command === "make test");
        expect(make?.content).toContain("key seen: yes");
        const why = outcome(r);
        expect.soft(foundIn(originObjects(r.f.repo), key), `pushed; ${why}`).toEqual([]);
        expect.soft(r.final.state, why).not.toBe("passed");
      } finally {
        await r.f.cleanup();
      }
    },
  );
});
