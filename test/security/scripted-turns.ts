// The scripted conversations of the attack chains: schema-valid PASSes for each role, one tool
// call per turn, and the builder that runs its own test code in its box.
import type { Turn } from "../../src/scripted-model/server.js";

export const SUMMARY = "A summary long enough for the schema. ".repeat(8);

/** An architect PASS with a one-task plan (schema-valid). */
export function architectPass(): Turn {
  return {
    structured: {
      verdict: "PASS",
      summary: SUMMARY,
      plan: {
        tasks: [
          {
            objective: "Make greet.sh print 'Hello, NAME!'",
            files: ["greet.sh"],
            steps: ["Add '!' at the end of the echo in greet.sh"],
            verification: "make test prints 1 passed",
          },
        ],
      },
    },
  };
}

/** A read-only role's PASS (reviewer or security). */
export function reviewPass(): Turn {
  return { structured: { verdict: "PASS", summary: SUMMARY, findings: [] } };
}

/** One tool call per turn: a refused or failing call never cancels its siblings. */
export function oneByOne(calls: Array<{ name: string; input: Record<string, unknown> }>): Turn[] {
  return calls.map((call) => ({ tools: [call] }));
}

export const bash = (command: string) => ({ name: "Bash", input: { command } });
export const read = (file_path: string) => ({ name: "Read", input: { file_path } });
export const write = (file_path: string, content: string) => ({
  name: "Write",
  input: { file_path, content },
});

/** greet.sh with the ticket's change: the builder's ordinary edit. */
export const GREET_SH =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not JS
  '#!/bin/sh\n# Prints a greeting for the name given as the first argument.\necho "Hello, ${1:-world}!"\n';

/** tests/test.sh expecting the ticket's change (the demo builder's own): verify passes. */
export const PASSING_TEST_SH = `#!/bin/sh
set -e
out=$(sh greet.sh Ada)
[ "$out" = "Hello, Ada!" ] || { echo "expected 'Hello, Ada!', got '$out'"; exit 1; }
echo "1 passed"
`;

/**
 * A builder that writes `tests/test.sh` (what `make test` and the base's verify.sh run), runs
 * `make test` — so the script runs in its box before the runner takes the work — edits greet.sh
 * and PASSes. `before` tool calls run first (one per turn).
 */
export function builderRunsTestSh(
  testSh: string,
  opts: { before?: Array<{ name: string; input: Record<string, unknown> }> } = {},
): Turn[] {
  return [
    ...oneByOne(opts.before ?? []),
    { tools: [write("tests/test.sh", testSh)] },
    { tools: [bash("make test")] },
    { tools: [write("greet.sh", GREET_SH)] },
    {
      structured: {
        verdict: "PASS",
        summary: SUMMARY,
        evidence: [{ command: "make test", exit_code: 0, output: "1 passed" }],
      },
    },
  ];
}
