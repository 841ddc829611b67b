import { describe, expect, it } from "vitest";
import {
  applyReadOnly,
  CLAUDE_READ_ONLY_DENY,
  FILE_CHANGING_COMMANDS,
  GIT_WRITE_SUBCOMMANDS,
  readOnlyPromptSentences,
} from "../../src/providers/read-only-flags.js";

const DENY = ["--disallowedTools", ...CLAUDE_READ_ONLY_DENY];

describe("applyReadOnly (R4.4)", () => {
  const table: Array<{
    name: string;
    provider: string;
    input: string[];
    output: string[];
    enforcement: string;
  }> = [
    {
      name: "claude, nothing there",
      provider: "claude",
      input: ["-p"],
      output: ["-p", ...DENY],
      enforcement: "flag",
    },
    {
      name: "claude stacks an existing --disallowedTools list (repeated variadic concatenates)",
      provider: "claude",
      input: ["-p", "--disallowedTools", "mcp__browser", "--model", "x"],
      output: ["-p", "--disallowedTools", "mcp__browser", "--model", "x", ...DENY],
      enforcement: "flag",
    },
    {
      name: "claude keeps the = spelling of an existing list",
      provider: "claude",
      input: ["--disallowed-tools=WebFetch"],
      output: ["--disallowed-tools=WebFetch", ...DENY],
      enforcement: "flag",
    },
    {
      name: "claude: ours go before the -- terminator, the prompt stays positional",
      provider: "claude",
      input: ["-p", "--", "review this"],
      output: ["-p", ...DENY, "--", "review this"],
      enforcement: "flag",
    },
    {
      name: "claude: permission bypass flags are removed",
      provider: "claude",
      input: ["--dangerously-skip-permissions", "-p", "--allow-dangerously-skip-permissions"],
      output: ["-p", ...DENY],
      enforcement: "flag",
    },
    {
      name: "codex: --sandbox workspace-write removed with its value",
      provider: "codex",
      input: ["exec", "--sandbox", "workspace-write", "-m", "o3"],
      output: ["exec", "-m", "o3", "--sandbox", "read-only"],
      enforcement: "flag",
    },
    {
      name: "codex: -s x removed",
      provider: "codex",
      input: ["exec", "-s", "danger-full-access", "-C", "/w"],
      output: ["exec", "-C", "/w", "--sandbox", "read-only"],
      enforcement: "flag",
    },
    {
      name: "codex: --sandbox=x and -sx removed, every occurrence",
      provider: "codex",
      input: ["exec", "--sandbox=workspace-write", "-sworkspace-write", "--sandbox", "read-only"],
      output: ["exec", "--sandbox", "read-only"],
      enforcement: "flag",
    },
    {
      name: "codex: --full-auto, the bypass flag and a sandbox_mode override are removed; other -c kept",
      provider: "codex",
      input: [
        "exec",
        "--full-auto",
        "--yolo",
        "-c",
        "sandbox_mode=workspace-write",
        "-c",
        "model_reasoning_effort=high",
      ],
      output: ["exec", "-c", "model_reasoning_effort=high", "--sandbox", "read-only"],
      enforcement: "flag",
    },
    {
      name: "codex: before the prompt",
      provider: "codex",
      input: ["exec", "-s", "workspace-write", "--", "-looks like a flag"],
      output: ["exec", "--sandbox", "read-only", "--", "-looks like a flag"],
      enforcement: "flag",
    },
    {
      name: "an unknown provider gets nothing on its argv",
      provider: "grok",
      input: ["--yolo", "x"],
      output: ["--yolo", "x"],
      enforcement: "prompt-only",
    },
  ];

  for (const row of table) {
    it(row.name, () => {
      const frozen = Object.freeze([...row.input]);
      const r = applyReadOnly(row.provider, frozen);
      expect(r.args).toEqual(row.output);
      expect(r.enforcement).toBe(row.enforcement);
      expect(frozen).toEqual(row.input);
    });
  }

  it("says plainly when a provider has only the prompt", () => {
    const r = applyReadOnly("opencode", []);
    expect(r.note).toMatch(/^opencode: no verified read-only flag/);
    expect(r.note).toMatch(/only the written rule/);
  });

  it("a codex read-only argv holds exactly one --sandbox whatever came in", () => {
    const inputs = [[], ["-s", "x"], ["--sandbox", "a", "--sandbox=b", "-sc"]];
    for (const input of inputs) {
      const { args } = applyReadOnly("codex", input);
      expect(
        args.filter((a) => a === "--sandbox" || a.startsWith("--sandbox=") || a.startsWith("-s")),
      ).toEqual(["--sandbox"]);
      expect(args.at(-1)).toBe("read-only");
    }
  });

  it("the claude list holds the four edit tools, every writing git subcommand and the file-changing commands", () => {
    for (const tool of ["Edit", "Write", "MultiEdit", "NotebookEdit"])
      expect(CLAUDE_READ_ONLY_DENY).toContain(tool);
    expect(GIT_WRITE_SUBCOMMANDS).toHaveLength(19);
    for (const sub of GIT_WRITE_SUBCOMMANDS)
      expect(CLAUDE_READ_ONLY_DENY).toContain(`Bash(git ${sub} *)`);
    for (const cmd of FILE_CHANGING_COMMANDS)
      expect(CLAUDE_READ_ONLY_DENY).toContain(`Bash(${cmd} *)`);
    expect(CLAUDE_READ_ONLY_DENY).toContain("Bash(sed -i *)");
    expect(CLAUDE_READ_ONLY_DENY).toHaveLength(4 + 19 + 12);
  });

  it("the two prompt sentences say what read-only means, that a refusal is the rule, and what stays open", () => {
    const text = readOnlyPromptSentences();
    const sentences = text.split(/(?<=\.)\s+(?=[A-Z])/);
    expect(sentences).toHaveLength(2);
    expect(sentences[0]).toMatch(/read-only/);
    expect(sentences[0]).toMatch(/refusal .* is the rule/);
    expect(sentences[0]).toMatch(/not an obstacle/);
    expect(sentences[1]).toMatch(/git diff/);
    expect(sentences[1]).toMatch(/file, the line and the reason/);
    expect(sentences[1]).toMatch(/step that owns the code/);
  });
});
