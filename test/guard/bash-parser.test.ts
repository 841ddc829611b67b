// The guard parses with the native tree-sitter binding and falls back to the wasm build when
// the addon cannot load. Both must see the same tree, or the fallback would be a different
// guard: a corpus of ordinary and adversarial commands is parsed with each and compared node
// by node (type, field, span, error/missing flags), and through the guard's own conversion.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lazyBashParser, parserKindFromEnv } from "../../src/guard/bash-parser.js";
import { ShellParseError } from "../../src/guard/shell-script.js";
import { type SyntaxNode, scriptFromTree } from "../../src/guard/shell-tree.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CORPUS = JSON.parse(
  readFileSync(join(ROOT, "fixtures", "guard", "bash-corpus.json"), "utf8"),
) as string[];

const native = lazyBashParser("native");
const wasm = lazyBashParser("wasm");

interface Shape {
  type: string;
  field: string | null;
  span: [number, number];
  flags: string;
  children: Shape[];
}

function shape(node: SyntaxNode, field: string | null = null): Shape {
  const children: Shape[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const c = node.child(i);
    if (c) children.push(shape(c, node.fieldNameForChild(i)));
  }
  const flags = `${node.isNamed ? "n" : ""}${node.isError ? "e" : ""}${node.isMissing ? "m" : ""}`;
  return { type: node.type, field, span: [node.startIndex, node.endIndex], flags, children };
}

function converted(root: SyntaxNode, source: string): unknown {
  try {
    return scriptFromTree(root, source, "/home/agent");
  } catch (error) {
    if (error instanceof ShellParseError) return { parseError: error.message };
    throw error;
  }
}

describe("bash parser builds", () => {
  // tree-sitter is an optional dependency compiled at npm ci (needs g++, make, python3): when
  // it did not build, this is the test that says so (the guard still works, on wasm).
  it("loads the native binding by default and the wasm build when asked", async () => {
    expect(await lazyBashParser().loadedKind()).toBe("native");
    expect(await native.loadedKind()).toBe("native");
    expect(await wasm.loadedKind()).toBe("wasm");
  });

  it("reads the build from FORGE_GUARD_PARSER, anything else is auto", () => {
    expect(parserKindFromEnv({ FORGE_GUARD_PARSER: "wasm" })).toBe("wasm");
    expect(parserKindFromEnv({ FORGE_GUARD_PARSER: "native" })).toBe("native");
    expect(parserKindFromEnv({ FORGE_GUARD_PARSER: "js" })).toBe("auto");
    expect(parserKindFromEnv({})).toBe("auto");
  });

  it.each(CORPUS.map((c) => [JSON.stringify(c).slice(0, 60), c]))(
    "native and wasm give the same tree: %s",
    async (_label, source) => {
      const a = await native.withTree(source, (root) => shape(root));
      const b = await wasm.withTree(source, (root) => shape(root));
      expect(a).toEqual(b);
      const sa = await native.withTree(source, (root) => converted(root, source));
      const sb = await wasm.withTree(source, (root) => converted(root, source));
      expect(sa).toEqual(sb);
    },
  );

  it("non-ASCII text keeps the same spans in both (UTF-16 indices)", async () => {
    const source = 'echo "héllo ✓ 𝄞" && cat .env';
    const a = await native.withTree(source, (root) => shape(root));
    const b = await wasm.withTree(source, (root) => shape(root));
    expect(a).toEqual(b);
  });
});

describe("the guard process with each build", () => {
  const payload = JSON.stringify({
    session_id: "s",
    transcript_path: "/dev/null",
    cwd: ROOT,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "echo \"$(cat .e'nv')\" | tr a b" },
  });
  it.each(["native", "wasm"])("%s: a secret read inside $(…) is denied", (kind) => {
    const r = spawnSync(
      process.execPath,
      [join(ROOT, "bin", "forge-guard.cjs"), "--role", "builder"],
      {
        input: payload,
        encoding: "utf8",
        env: { ...process.env, FORGE_GUARD_PARSER: kind },
      },
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/\.env/);
  });
});
