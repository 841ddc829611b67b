import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEnforcementModel } from "../../src/boxes/enforcement-model.js";
import {
  claudeProvider,
  parseClaudeResult,
  resolveClaudeBinary,
} from "../../src/providers/claude.js";
import { ProviderConfigError } from "../../src/providers/errors.js";
import { CLAUDE_READ_ONLY_DENY } from "../../src/providers/read-only-flags.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CLAUDE = resolveClaudeBinary(ROOT);
const SCHEMA = {
  type: "object",
  properties: { verdict: { type: "string" } },
  required: ["verdict"],
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = mkdtempSync(join(tmpdir(), "forge-claude-"));
  dirs.push(d);
  return d;
}

describe("claude buildInvocation (R2.1)", () => {
  const provider = claudeProvider({ binary: "/x/claude" });
  const base = {
    prompt: "hello",
    role: "reviewer" as const,
    settingsFile: "/s/reviewer.json",
    cwd: "/w",
  };

  it("builds the R2.1 command line with stream-json and an inline schema", () => {
    const inv = provider.buildInvocation({
      ...base,
      readOnly: false,
      schemaJson: JSON.stringify(SCHEMA, null, 2),
      model: "opus",
    });
    expect(inv.command).toBe("/x/claude");
    expect(inv.args).toEqual([
      "-p",
      "--permission-mode",
      "dontAsk",
      "--settings",
      "/s/reviewer.json",
      "--setting-sources",
      "user",
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
      "--json-schema",
      JSON.stringify(SCHEMA),
      "--model",
      "opus",
    ]);
    expect(inv.readOnlyEnforcement).toBe("none");
    expect(inv.args).not.toContain("--bare");
  });

  it("read-only steps get the --disallowedTools list, last (it takes every value up to the next flag)", () => {
    const inv = provider.buildInvocation({ ...base, readOnly: true });
    expect(inv.readOnlyEnforcement).toBe("flag");
    const i = inv.args.indexOf("--disallowedTools");
    expect(inv.args.slice(i + 1, i + 1 + CLAUDE_READ_ONLY_DENY.length)).toEqual([
      ...CLAUDE_READ_ONLY_DENY,
    ]);
    expect(inv.args.at(-1)).toBe(CLAUDE_READ_ONLY_DENY.at(-1));
  });

  it("the prompt never reaches argv: it is one stream-json user message on stdin", () => {
    // One argv string is capped at 128 KiB (MAX_ARG_STRLEN); a fenced diff may be 256 KiB.
    const prompt = `--dangerously-skip-permissions\n${"d".repeat(300 * 1024)}`;
    for (const readOnly of [true, false]) {
      const inv = provider.buildInvocation({ ...base, prompt, readOnly });
      expect(inv.args.join(" ")).not.toContain("ddd");
      expect(inv.args).not.toContain("--dangerously-skip-permissions");
      expect(inv.args).not.toContain("--");
      const line = inv.stdinPrompt?.(prompt) ?? "";
      expect(line.endsWith("\n")).toBe(true);
      expect(line.slice(0, -1)).not.toContain("\n");
      expect(JSON.parse(line)).toEqual({
        type: "user",
        message: { role: "user", content: [{ type: "text", text: prompt }] },
      });
    }
  });

  it("our flags win over deployment extras; --bare and bypass never pass", () => {
    const inv = provider.buildInvocation({
      ...base,
      readOnly: false,
      model: "opus",
      extraArgs: [
        "--permission-mode",
        "bypassPermissions",
        "--bare",
        "--model=haiku",
        "--settings",
        "/evil.json",
        "--no-session-persistence",
        "--dangerously-skip-permissions",
      ],
    });
    expect(inv.args.filter((a) => a === "--permission-mode")).toHaveLength(1);
    expect(inv.args[inv.args.indexOf("--permission-mode") + 1]).toBe("dontAsk");
    expect(inv.args).not.toContain("bypassPermissions");
    expect(inv.args).not.toContain("--bare");
    expect(inv.args).not.toContain("/evil.json");
    expect(inv.args).not.toContain("--model=haiku");
    expect(inv.args).not.toContain("--dangerously-skip-permissions");
    expect(inv.args).toContain("--no-session-persistence");
    expect(inv.notes.join(" ")).toMatch(/overridden by ours/);
  });

  it("does not pass flags claude --help does not document (max turns) and says so", () => {
    const inv = provider.buildInvocation({
      ...base,
      readOnly: false,
      maxTurns: 30,
      maxBudgetUsd: 2.5,
    });
    expect(inv.args).not.toContain("--max-turns");
    expect(
      inv.args.slice(
        inv.args.indexOf("--max-budget-usd"),
        inv.args.indexOf("--max-budget-usd") + 2,
      ),
    ).toEqual(["--max-budget-usd", "2.5"]);
    expect(inv.notes.join(" ")).toMatch(/--max-turns is not in claude --help/);
  });

  it("refuses to build without settings, with a '--' in extras, or with a schema that is not JSON", () => {
    expect(() =>
      provider.buildInvocation({ ...base, settingsFile: undefined, readOnly: true }),
    ).toThrow(ProviderConfigError);
    expect(() =>
      provider.buildInvocation({ ...base, readOnly: true, extraArgs: ["--", "x"] }),
    ).toThrow(ProviderConfigError);
    expect(() =>
      provider.buildInvocation({ ...base, readOnly: true, schemaJson: "{nope" }),
    ).toThrow(ProviderConfigError);
  });

  it("credentialEnv takes only the provider's own variables that are set", () => {
    const env = {
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: "http://x",
      ANTHROPIC_AUTH_TOKEN: "",
      GITHUB_TOKEN: "g",
      OPENAI_API_KEY: "o",
      CLAUDE_CODE_OAUTH_TOKEN: "t",
    };
    expect(provider.credentialEnv(env)).toEqual({
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: "http://x",
      CLAUDE_CODE_OAUTH_TOKEN: "t",
    });
  });
});

describe("parseClaudeResult", () => {
  it("takes the last result line of stream-json", () => {
    const out = [
      JSON.stringify({ type: "system", subtype: "init" }),
      JSON.stringify({ type: "assistant", message: {} }),
      JSON.stringify({
        type: "result",
        subtype: "success",
        is_error: false,
        structured_output: { verdict: "PASS" },
        total_cost_usd: 0.5,
        num_turns: 3,
      }),
      "",
    ].join("\n");
    expect(parseClaudeResult(out)).toMatchObject({
      structured: { verdict: "PASS" },
      isError: false,
      subtype: "success",
      costUsd: 0.5,
      turns: 3,
    });
  });

  it("reads the json format too, and fails closed on anything else", () => {
    expect(
      parseClaudeResult(
        JSON.stringify({ type: "result", is_error: true, subtype: "error_max_turns" }),
      ),
    ).toMatchObject({ isError: true, structured: null, subtype: "error_max_turns" });
    expect(parseClaudeResult("")).toMatchObject({ raw: null, structured: null, isError: true });
    expect(parseClaudeResult('{"type":"assistant"}\nnot json')).toMatchObject({
      isError: true,
      structured: null,
    });
  });

  it("a success without structured output yields structured null (no verdict)", () => {
    expect(
      parseClaudeResult(
        JSON.stringify({
          type: "result",
          subtype: "success",
          is_error: false,
          structured_output: null,
        }),
      ).structured,
    ).toBeNull();
  });
});

describe("the real claude CLI takes our argv", () => {
  it("a read-only invocation starts, refuses Write and touch, and parseResult reads its structured output", async () => {
    const ws = temp();
    const home = temp();
    const settingsFile = join(home, "settings.json");
    // Permissive settings on purpose: only our read-only flags stand between the model and the disk.
    writeFileSync(
      settingsFile,
      JSON.stringify({ permissions: { allow: ["Bash", "Write", "Edit", "Read"] } }),
    );
    const model = await startEnforcementModel([
      { name: "Write", input: { file_path: join(ws, "w.txt"), content: "x" } },
      { name: "Bash", input: { command: "touch t.txt", description: "t" } },
      { name: "Bash", input: { command: "git stash list", description: "s" } },
      { name: "StructuredOutput", input: { verdict: "PASS" } },
    ]);
    try {
      const prompt = "-starts with a dash and must stay the prompt";
      const inv = claudeProvider({ binary: CLAUDE }).buildInvocation({
        prompt,
        role: "reviewer",
        readOnly: true,
        settingsFile,
        schemaJson: JSON.stringify(SCHEMA),
        cwd: ws,
      });
      const out = await runCli(
        inv.command,
        inv.args,
        ws,
        {
          PATH: process.env.PATH ?? "",
          HOME: home,
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: "fake-key",
        },
        inv.stdinPrompt?.(prompt) ?? "",
      );
      expect(out.code, out.stderr).toBe(0);
      expect(model.results.map((r) => [r.call.name, r.isError])).toEqual([
        ["Write", true],
        ["Bash", true],
        ["Bash", true],
      ]);
      expect(existsSync(join(ws, "w.txt"))).toBe(false);
      expect(existsSync(join(ws, "t.txt"))).toBe(false);
      expect(
        model.rawBodies.some((b) => b.includes("-starts with a dash and must stay the prompt")),
      ).toBe(true);
      // A valid StructuredOutput call ends the run: no tool result for it comes back.
      const parsed = parseClaudeResult(out.stdout);
      expect(parsed).toMatchObject({
        structured: { verdict: "PASS" },
        isError: false,
        subtype: "success",
      });
      // stream-json: the transcript is there too, before the result line.
      expect(
        out.stdout.split("\n").filter((l) => l.includes('"type":"assistant"')).length,
      ).toBeGreaterThan(0);
    } finally {
      await model.close();
    }
  });
});

function runCli(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  input: string,
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const c = spawn(cmd, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    c.stdin.end(input);
    let stdout = "";
    let stderr = "";
    c.stdout.on("data", (d: Buffer) => (stdout += d));
    c.stderr.on("data", (d: Buffer) => (stderr += d));
    c.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
