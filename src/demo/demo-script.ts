// The scripted model behind `forge demo` (and the chain tests): one route per role, each a
// short, realistic conversation the REAL claude binary plays out — reads, a guard refusal,
// an edit, the tests, and a schema-valid structured output. Nothing here calls a real model.
import type { Script, Turn } from "../scripted-model/server.js";

const pad = (s: string) =>
  s.length >= 200
    ? s
    : `${s} ${"This summary is padded by the demo script to the schema's 200-character minimum.".repeat(3)}`.slice(
        0,
        600,
      );

const TEST_SH = `#!/bin/sh
set -e
out=$(sh greet.sh Ada)
[ "$out" = "Hello, Ada!" ] || { echo "expected 'Hello, Ada!', got '$out'"; exit 1; }
echo "1 passed"
`;

export interface DemoScriptOptions {
  /** Absolute workspace paths are not known in advance: tools use relative paths. */
  builderContent?: string;
}

export function demoScript(opts: DemoScriptOptions = {}): Script {
  const content =
    opts.builderContent ??
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not JS
    '#!/bin/sh\n# Prints a greeting for the name given as the first argument.\necho "Hello, ${1:-world}!"\n';
  const architect: Turn[] = [
    {
      tools: [
        { name: "Read", input: { file_path: "README.md" } },
        { name: "Bash", input: { command: "git log --oneline -5", description: "history" } },
      ],
    },
    {
      structured: {
        verdict: "PASS",
        summary: pad(
          "The ticket asks for an exclamation mark at the end of the greeting. One task: change greet.sh to end the greeting with '!', update tests/test.sh to expect it, then run make test.",
        ),
        plan: {
          tasks: [
            {
              objective: "Make greet.sh print 'Hello, NAME!'",
              files: ["greet.sh", "tests/test.sh"],
              steps: ["Add '!' at the end of the echo in greet.sh", "Run make test"],
              verification: "make test prints 1 passed",
            },
          ],
          risks: ["none beyond the one-line change"],
        },
      },
    },
  ];
  const builder: Turn[] = [
    // A refusal the demo shows on purpose: the guard closes secret files, also inside Bash.
    {
      tools: [
        {
          name: "Bash",
          input: { command: "cat .env.example .env", description: "look at the env files" },
        },
      ],
    },
    {
      tools: [
        { name: "Write", input: { file_path: "greet.sh", content } },
        { name: "Write", input: { file_path: "tests/test.sh", content: TEST_SH } },
      ],
    },
    { tools: [{ name: "Bash", input: { command: "make test", description: "run the tests" } }] },
    {
      structured: {
        verdict: "PASS",
        summary: pad(
          "Changed greet.sh to end the greeting with '!'. make test passes (1 passed). The guard refused reading .env, as it should; the template was not needed.",
        ),
        evidence: [{ command: "make test", exit_code: 0, output: "sh tests/test.sh\n1 passed" }],
      },
    },
  ];
  const review = (role: "reviewer" | "security"): Turn[] => [
    {
      tools: [
        { name: "Bash", input: { command: "git diff HEAD~1 --stat", description: "what changed" } },
        { name: "Read", input: { file_path: "greet.sh" } },
      ],
    },
    {
      structured: {
        verdict: "PASS",
        summary: pad(
          role === "reviewer"
            ? "The diff changes one line of greet.sh to add the exclamation mark the ticket asks for; the test control passed in the box. No findings."
            : "The change is one echo line in a shell script: no new input handling, no secrets, no network, no permissions changed. No findings.",
        ),
        findings: [],
      },
    },
  ];
  return {
    turns: [],
    finalText: "Done.",
    routes: [
      { marker: "forgechain step: architect", turns: architect },
      { marker: "forgechain step: builder", turns: builder },
      { marker: "forgechain step: reviewer", turns: review("reviewer") },
      { marker: "forgechain step: security", turns: review("security") },
    ],
  };
}
