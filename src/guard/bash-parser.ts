// Lazy tree-sitter-bash. Loading costs ~25–35 ms (module import, two wasm compiles, first
// parse), so the guard only loads it when a Bash command is not a plain word list (see
// fast-path.ts). Both wasm files are read with readFileSync and compiled in parallel while the
// JS module is imported; tree-sitter then instantiates the precompiled modules instead of
// locating and fetching the files itself.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import type { SyntaxNode } from "./shell-tree.js";

export interface BashParser {
  /** Parses `source` and hands the root to `use` (the tree is freed afterwards). */
  withTree<T>(source: string, use: (root: SyntaxNode) => T): Promise<T>;
}

export class ParserUnavailableError extends Error {}

/** Parsing longer than this is cancelled (a synchronous wasm loop would block the watchdog). */
const PARSE_BUDGET_MS = 2_000;

interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: object) => object;
}

interface TreeLike {
  rootNode: SyntaxNode;
  delete(): void;
}

interface ParserLike {
  parse(source: string, old: null, options: { progressCallback: () => boolean }): TreeLike | null;
}

async function loadParser(): Promise<ParserLike> {
  // Measured here: with V8's default tiering, a process that compiled tree-sitter-bash.wasm
  // (1.3 MB) spends ~1–2 s more before it exits (optimising compiles on background threads),
  // although the parse itself is done in ~30 ms. Liftoff (the baseline compiler) alone keeps
  // the whole process near 0.1 s. The flag is read at compile time, so setting it here, before
  // the first wasm compile of this short-lived process, is enough.
  setFlagsFromString("--liftoff-only");
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const require = createRequire(import.meta.url);
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
  return parser as unknown as ParserLike;
}

/** A parser that loads tree-sitter on first use and keeps it for later calls. */
export function lazyBashParser(): BashParser {
  let loading: Promise<ParserLike> | undefined;
  return {
    async withTree(source, use) {
      loading ??= loadParser();
      let parser: ParserLike;
      try {
        parser = await loading;
      } catch (error) {
        throw new ParserUnavailableError(`the Bash parser could not be loaded: ${String(error)}`);
      }
      const deadline = performance.now() + PARSE_BUDGET_MS;
      const tree = parser.parse(source, null, {
        progressCallback: () => performance.now() > deadline,
      });
      if (!tree) throw new ParserUnavailableError("parsing the command took too long");
      try {
        return use(tree.rootNode);
      } finally {
        tree.delete();
      }
    },
  };
}
