import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { ConfigError, type Position } from "./issues.js";

/** Config files are small; a huge one is a mistake or an attack on the parser. */
export const MAX_CONFIG_BYTES = 256 * 1024;

/** A parsed YAML (or JSON — JSON is YAML 1.2) file that still knows where every node was. */
export interface YamlSource {
  file: string;
  data: unknown;
  /**
   * Position of the node at `path` — of its key when `part` is "key" — or of the deepest
   * ancestor that exists when the path does not (a missing key is reported at its parent).
   */
  locate(path: readonly PropertyKey[], part?: "key" | "value"): Position | undefined;
}

/**
 * Parses without losing positions. Syntax errors, duplicate keys, unresolved tags and alias
 * bombs become ConfigIssues with line and column; nothing is ever executed (`yaml` resolves
 * only the core schema's tags, so `!!js/function` and friends stay inert and are refused).
 */
export function parseYamlSource(text: string, file: string): YamlSource {
  if (Buffer.byteLength(text, "utf8") > MAX_CONFIG_BYTES) {
    throw new ConfigError([
      {
        severity: "error",
        code: "file_too_large",
        file,
        path: "",
        line: 1,
        column: 1,
        message: `the file is larger than ${MAX_CONFIG_BYTES} bytes`,
        fix: "keep the configuration short; move long scripts into files and call them",
      },
    ]);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
    strict: true,
    version: "1.2",
  });
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    throw new ConfigError(
      problems.map((problem) => {
        // yaml reports an unclosed quote where the file ends; point at the quote instead.
        const quote = /closing (["'])/.exec(problem.message)?.[1];
        const opened = quote ? unclosedQuote(text, quote) : undefined;
        return {
          severity: "error" as const,
          code: `yaml_${problem.code.toLowerCase()}`,
          file,
          path: "",
          ...(opened ?? at(problem.pos[0])),
          message: opened
            ? `malformed YAML: the quoted string starting here is never closed`
            : `malformed YAML: ${firstLine(problem.message)}`,
          fix: opened ? `add the closing ${quote} at the end of the value` : yamlFix(problem.code),
        };
      }),
    );
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 50 }) ?? {};
  } catch (error) {
    throw new ConfigError([
      {
        severity: "error",
        code: "yaml_unreadable",
        file,
        path: "",
        line: 1,
        column: 1,
        message: `malformed YAML: ${error instanceof Error ? error.message : String(error)}`,
        fix: "remove the aliases (*name) or write the values out",
      },
    ]);
  }

  const locate = (path: readonly PropertyKey[], part: "key" | "value" = "value") => {
    let node: unknown = doc.contents;
    let best: Position | undefined = nodeStart(node, at) ?? { line: 1, column: 1 };
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find(
          (item) =>
            isPair(item) &&
            String(isScalar(item.key) ? item.key.value : item.key) === String(segment),
        );
        if (!pair) return best;
        if (last && part === "key") return nodeStart(pair.key, at) ?? best;
        best = nodeStart(pair.value, at) ?? nodeStart(pair.key, at) ?? best;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === "number") {
        const item = node.items[segment];
        if (item === undefined) return best;
        best = nodeStart(item, at) ?? best;
        node = item;
      } else {
        return best;
      }
    }
    return best;
  };
  return { file, data, locate };
}

function nodeStart(node: unknown, at: (offset: number) => Position): Position | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? at(range[0]) : undefined;
}

/** The first line with an odd number of `quote` characters: where the open string starts. */
function unclosedQuote(text: string, quote: string): Position | undefined {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const positions = [...line.matchAll(quote === '"' ? /(?<!\\)"/g : /'/g)].map((m) => m.index);
    if (positions.length % 2 === 1) return { line: i + 1, column: (positions.at(-1) ?? 0) + 1 };
  }
  return undefined;
}

function firstLine(message: string): string {
  return message.split("\n")[0]?.trim() ?? message;
}

function yamlFix(code: string): string {
  switch (code) {
    case "DUPLICATE_KEY":
      return "each key may appear once per block; merge the two entries";
    case "BAD_INDENT":
    case "MISSING_CHAR":
    case "UNEXPECTED_TOKEN":
      return "check the indentation (spaces, not tabs) and that every key ends with a colon";
    case "TAB_AS_INDENT":
      return "indent with spaces; YAML does not allow tabs";
    case "TAG_RESOLVE_FAILED":
    case "BAD_DIRECTIVE":
      return "remove the tag (!…); plain values are all this file needs";
    default:
      return "fix the YAML syntax at this position (a YAML linter shows the detail)";
  }
}
