import { describe, expect, it } from "vitest";
import { controlInvocation } from "../../src/policy/builtin-controls.js";
import { resolveConfig } from "../../src/policy/cascade.js";
import {
  type ControlResult,
  controlsToRun,
  evaluateControls,
  formatControlLine,
  setupToRun,
  setupValidateDigest,
} from "../../src/policy/controls.js";
import { parseForgeConfig } from "../../src/policy/forge-config-parse.js";

const ok = (id: string, advisory = false): ControlResult => ({ id, advisory, exitCode: 0 });
const fail = (id: string, advisory = false, exitCode = 1): ControlResult => ({
  id,
  advisory,
  exitCode,
});

describe("evaluateControls (R8.3)", () => {
  it("an advisory control that fails leaves the evaluation passing, with a warning mark", () => {
    const result = evaluateControls([ok("test"), fail("security", true)]);
    expect(result.passed).toBe(true);
    expect(result.blocking).toEqual([]);
    expect(result.repair).toBe(false);
    expect(result.warnings.map((w) => [w.id, w.mark, w.status])).toEqual([
      ["security", "⚠️", "failed"],
    ]);
    expect(formatControlLine(result.warnings[0] as never)).toBe(
      "⚠️ security (advisory): failed with exit 1",
    );
  });

  it("a blocking control that fails fails, blocks and asks for a repair", () => {
    const result = evaluateControls([fail("test"), ok("security", true)]);
    expect(result.passed).toBe(false);
    expect(result.blocking.map((b) => [b.id, b.mark])).toEqual([["test", "❌"]]);
    expect(result.repair).toBe(true);
  });

  it("a control that could not start is a failure even when advisory", () => {
    for (const r of [
      { id: "security", advisory: true, exitCode: 127 },
      { id: "security", advisory: true, exitCode: 126 },
      { id: "security", advisory: true, exitCode: null, spawnError: "ENOENT" },
      { id: "security", advisory: true, exitCode: null },
    ] satisfies ControlResult[]) {
      const result = evaluateControls([ok("test"), r]);
      expect(result.passed, JSON.stringify(r)).toBe(false);
      expect(result.blocking[0]?.status).toBe("not_started");
      expect(result.blocking[0]?.detail).toMatch(/could not start/);
      // Not the builder's code failing: a repair round would not help.
      expect(result.repair).toBe(false);
    }
  });

  it("a timed-out or killed advisory control is only a warning; a blocking one blocks", () => {
    const timed = { id: "lint", advisory: true, exitCode: null, timedOut: true };
    expect(evaluateControls([timed]).passed).toBe(true);
    expect(evaluateControls([{ ...timed, advisory: false }]).passed).toBe(false);
    const killed = { id: "lint", advisory: false, exitCode: null, signal: "SIGKILL" };
    expect(evaluateControls([killed]).blocking[0]?.detail).toBe("killed by SIGKILL");
  });

  it("a profile can make a non-blocking control blocking", () => {
    const result = evaluateControls([fail("security", true)], {
      name: "strict",
      controls: { security: { advisory: false } },
    });
    expect(result.passed).toBe(false);
    expect(result.blocking[0]).toMatchObject({ id: "security", advisory: false, mark: "❌" });
  });

  it("an attempt to un-block a control has no effect and is reported", () => {
    const result = evaluateControls([fail("test")], {
      name: "lax",
      controls: { test: { advisory: true } },
    });
    expect(result.passed).toBe(false);
    expect(result.blocking[0]?.advisory).toBe(false);
    expect(result.notices).toEqual([
      'profile lax: "test" stays blocking — a profile can make a control blocking, never non-blocking',
    ]);
  });

  it("passes when every control passes", () => {
    const result = evaluateControls([ok("test"), ok("security", true)]);
    expect(result.passed).toBe(true);
    expect(result.controls.map((c) => c.mark)).toEqual(["✅", "✅"]);
  });
});

describe("controls to run", () => {
  const config = resolveConfig({
    rootFiles: ["go.mod"],
    repo: parseForgeConfig(
      "components:\n  web:\n    setup: [npm ci]\n    validate:\n      test: { run: npm test }\n",
    ),
  });

  it("lists root controls then component controls with their folder", () => {
    expect(controlsToRun(config).map((c) => [c.id, c.run, c.cwd, c.advisory])).toEqual([
      ["test", "go test ./...", ".", false],
      ["security", "forge:secret-scan", ".", true],
      ["web:test", "npm test", "web", false],
    ]);
    expect(setupToRun(config)).toEqual([
      { command: "go mod download", cwd: "." },
      { command: "npm ci", cwd: "web" },
    ]);
  });

  it("the box-proof digest changes with what runs, not with where a value came from", () => {
    const same = resolveConfig({
      rootFiles: ["README.md"],
      repo: parseForgeConfig(
        "setup: [go mod download]\nvalidate:\n  test: { run: go test ./... }\ncomponents:\n  web:\n    setup: [npm ci]\n    validate:\n      test: { run: npm test }\n",
      ),
    });
    expect(setupValidateDigest(same)).toBe(setupValidateDigest(config));
    const changed = resolveConfig({
      rootFiles: ["go.mod"],
      repo: parseForgeConfig("validate:\n  test: { run: go test -race ./... }\n"),
    });
    expect(setupValidateDigest(changed)).not.toBe(setupValidateDigest(config));
  });

  it("the floor's security control is a built-in the runner turns into an argv, never a shell line", () => {
    const forge = ["/usr/bin/node", "/opt/forge/bin/forge.js"];
    expect(controlInvocation("forge:secret-scan", forge)).toEqual({
      kind: "argv",
      argv: [...forge, "scan-secrets"],
      builtin: "forge:secret-scan",
    });
    expect(controlInvocation("npm test", forge)).toEqual({ kind: "shell", command: "npm test" });
    expect(() => controlInvocation("forge:rm-rf", forge)).toThrow(/unknown built-in/);
  });
});
