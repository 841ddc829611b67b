// Lazy tree-sitter-bash. The guard only loads a parser for Bash commands that are not plain
// word lists (see fast-path.ts), and then prefers the native binding (`tree-sitter`, N-API):
// measured here it loads and parses in ~10 ms where the wasm build (`web-tree-sitter`) needs
// ~100 ms (two wasm compiles of 1.5 MB). Both run the same grammar (tree-sitter-bash 0.25.1
// ships the native library and the .wasm); a test parses a corpus with both and compares the
// trees. The wasm build is the fallback when the native addon cannot load (no prebuild and no
// compiler at install time), so the guard keeps working rather than denying every command.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { SyntaxNode } from "./shell-tree.js";

export interface BashParser {
  /** Parses `source` and hands the root to `use` (the tree is freed afterwards). */
  withTree<T>(source: string, use: (root: SyntaxNode) => T): Promise<T>;
}

export class ParserUnavailableError extends Error {}

/** Which build parses: `native` (default, wasm when it cannot load), or exactly one of them. */
export type ParserKind = "auto" | "native" | "wasm";

/** Parsing longer than this is cancelled (a synchronous parse would block the watchdog). */
const PARSE_BUDGET_MS = 2_000;

interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: object) => object;
}

interface TreeLike {
  rootNode: SyntaxNode;
  /** wasm trees live in wasm memory and must be freed; native trees are garbage-collected. */
  delete?(): void;
}

interface ParserLike {
  readonly kind: "native" | "wasm";
  parse(
    source: string,
    old: null,
    options: { progressCallback: () => boolean },
  ): TreeLike | null | undefined;
}

function loadNative(): ParserLike {
  const require = createRequire(import.meta.url);
  const Native = require("tree-sitter") as new () => {
    setLanguage(language: unknown): void;
    parse: ParserLike["parse"];
  };
  const parser = new Native();
  parser.setLanguage(loadNativeBash(require));
  return { kind: "native", parse: (s, o, opts) => parser.parse(s, o, opts) };
}

/**
 * The grammar's addon itself, not the package's entry: the entry also attaches
 * node-types.json, from which tree-sitter builds a JS class per node type on setLanguage
 * (measured ~8 ms with the entry's prebuild search; the guard reads nodes generically and
 * needs none of them). A platform without a shipped prebuild takes the package entry.
 */
function loadNativeBash(require: NodeJS.Require): unknown {
  const dir = dirname(require.resolve("tree-sitter-bash/package.json"));
  try {
    return require(
      join(dir, "prebuilds", `${process.platform}-${process.arch}`, "tree-sitter-bash.node"),
    );
  } catch {
    return require("tree-sitter-bash");
  }
}

async function loadWasm(): Promise<ParserLike> {
  // Measured here: with V8's default tiering, a process that compiled tree-sitter-bash.wasm
  // (1.3 MB) spends ~1–2 s more before it exits (optimising compiles on background threads),
  // although the parse itself is done in ~30 ms. Liftoff (the baseline compiler) alone keeps
  // the whole process near 0.1 s. The flag is read at compile time, so setting it here, before
  // the first wasm compile of this short-lived process, is enough.
  // node:v8 is required here, not imported at the top: loading it costs ~5 ms that every guard
  // run would pay.
  const require = createRequire(import.meta.url);
  (require("node:v8") as typeof import("node:v8")).setFlagsFromString("--liftoff-only");
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const coreBytes = readFileSync(require.resolve("web-tree-sitter/web-tree-sitter.wasm"));
  const bashBytes = readFileSync(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  const [ts, core, bash] = await Promise.all([
    import("web-tree-sitter"),
    wasm.compile(coreBytes),
    wasm.compile(bashBytes),
  ]);
  await ts.Parser.init({
    instantiateWasm(imports: object, done: (instance: object, module: object) => void) {
      done(new wasm.Instance(core, imports), core);
      return {};
    },
  } as never);
  const language = ts.Language.loadSync(bash as never);
  const parser = new ts.Parser();
  parser.setLanguage(language);
  const p = parser as unknown as Pick<ParserLike, "parse">;
  return { kind: "wasm", parse: (s, o, opts) => p.parse(s, o, opts) };
}

async function loadParser(kind: ParserKind): Promise<ParserLike> {
  if (kind === "wasm") return loadWasm();
  try {
    return loadNative();
  } catch (error) {
    if (kind === "native") throw error;
    return loadWasm();
  }
}

/** The parser kind asked for by FORGE_GUARD_PARSER (tests pin one build); default auto. */
export function parserKindFromEnv(env: Readonly<Record<string, string | undefined>>): ParserKind {
  const v = env.FORGE_GUARD_PARSER;
  return v === "native" || v === "wasm" ? v : "auto";
}

/** A parser that loads tree-sitter on first use and keeps it for later calls. */
export function lazyBashParser(kind: ParserKind = "auto"): BashParser & {
  /** Which build answered (after the first parse): for tests and the bench. */
  loadedKind(): Promise<"native" | "wasm">;
} {
  let loading: Promise<ParserLike> | undefined;
  const load = async (): Promise<ParserLike> => {
    loading ??= loadParser(kind);
    try {
      return await loading;
    } catch (error) {
      throw new ParserUnavailableError(`the Bash parser could not be loaded: ${String(error)}`);
    }
  };
  return {
    async loadedKind() {
      return (await load()).kind;
    },
    async withTree(source, use) {
      const parser = await load();
      const deadline = performance.now() + PARSE_BUDGET_MS;
      const tree = parser.parse(source, null, {
        progressCallback: () => performance.now() > deadline,
      });
      if (!tree) throw new ParserUnavailableError("parsing the command took too long");
      try {
        return use(tree.rootNode);
      } finally {
        tree.delete?.();
      }
    },
  };
}
