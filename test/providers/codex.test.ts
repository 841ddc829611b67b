// The codex binary is not installed here: these tests check the argv only (flags from FACTS.md).
import { describe, expect, it } from "vitest";
import { CODEX_FLAGS, codexProvider, parseCodexResult } from "../../src/providers/codex.js";
import { ProviderConfigError } from "../../src/providers/errors.js";

const provider = codexProvider();
const base = { prompt: "review", role: "reviewer" as const, cwd: "/w" };

describe("codex buildInvocation", () => {
  it("a read-only step runs codex exec --sandbox read-only, -C, -m, --output-schema, prompt last", () => {
    const inv = provider.buildInvocation({
      ...base,
      readOnly: true,
      model: "o3",
      schemaFile: "/s/reviewer.json",
    });
    expect(inv.command).toBe("codex");
    expect(inv.args).toEqual([
      "exec",
      "-C",
      "/w",
      "-m",
      "o3",
      "--output-schema",
      "/s/reviewer.json",
      "--sandbox",
      "read-only",
      "--",
      "review",
    ]);
    expect(inv.readOnlyEnforcement).toBe("flag");
    expect(inv.notes.join(" ")).toMatch(/not installed/);
    expect(inv.notes.join(" ")).toMatch(/--output-schema: NOT verified/);
  });

  it("a writer gets workspace-write, once, even when the extras carry a sandbox", () => {
    const inv = provider.buildInvocation({
      ...base,
      role: "builder",
      readOnly: false,
      extraArgs: ["-s", "danger-full-access", "-c", "x=1"],
    });
    expect(inv.args).toEqual([
      "exec",
      "-C",
      "/w",
      "-c",
      "x=1",
      "--sandbox",
      "workspace-write",
      "--",
      "review",
    ]);
    expect(inv.readOnlyEnforcement).toBe("none");
  });

  it("a read-only step replaces a user's --sandbox workspace-write and --full-auto (strict parser: no repeat)", () => {
    const inv = provider.buildInvocation({
      ...base,
      readOnly: true,
      extraArgs: ["--sandbox", "workspace-write", "--full-auto", "--cd", "/elsewhere"],
    });
    expect(inv.args).toEqual(["exec", "-C", "/w", "--sandbox", "read-only", "--", "review"]);
  });

  it("refuses to build without a prompt (codex takes it on the command line)", () => {
    expect(() => provider.buildInvocation({ role: "builder", readOnly: false, cwd: "/w" })).toThrow(
      ProviderConfigError,
    );
  });

  it("marks which flags are verified", () => {
    expect(CODEX_FLAGS["--sandbox"]).toMatch(/^verified/);
    expect(CODEX_FLAGS["--output-schema"]).toMatch(/^NOT verified/);
  });

  it("credentialEnv: OPENAI_API_KEY and OPENAI_BASE_URL only", () => {
    expect(
      provider.credentialEnv({ OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "a", OPENAI_BASE_URL: "u" }),
    ).toEqual({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: "u" });
  });

  it("parseResult takes the JSON final message, or the last JSON line; nothing → error", () => {
    expect(parseCodexResult('{"verdict":"PASS"}\n').structured).toEqual({ verdict: "PASS" });
    expect(parseCodexResult('thinking…\n{"verdict":"FAIL"}').structured).toEqual({
      verdict: "FAIL",
    });
    expect(parseCodexResult("just words")).toMatchObject({ structured: null, isError: false });
    expect(parseCodexResult("  ")).toMatchObject({ structured: null, isError: true });
  });
});
