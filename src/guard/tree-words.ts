// Reading words out of tree-sitter-bash nodes, character by character, the way bash does
// quote removal: backslashes, single quotes, double-quote escapes, ANSI-C strings, and
// concatenations joined (`.e"nv"` is `.env`). Node types we do not know become run-time
// ("dyn") parts, never literals.
import { decodeAnsiC } from "./ansi-c.js";
import { ShellParseError } from "./shell-script.js";
import { charPart, dynPart, type WordPart } from "./shell-words.js";

/** The subset of web-tree-sitter's Node the guard reads (kept structural for tests). */
export interface SyntaxNode {
  readonly type: string;
  readonly text: string;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly isNamed: boolean;
  readonly isError: boolean;
  readonly isMissing: boolean;
  readonly childCount: number;
  child(index: number): SyntaxNode | null;
  fieldNameForChild(index: number): string | null;
}

export const WORD_TYPES = new Set([
  "word",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "concatenation",
  "number",
  "simple_expansion",
  "expansion",
  "command_substitution",
  "arithmetic_expansion",
  "process_substitution",
  "brace_expression",
  "regex",
  "extglob_pattern",
]);

export function children(node: SyntaxNode): { node: SyntaxNode; field: string | null }[] {
  const out: { node: SyntaxNode; field: string | null }[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const c = node.child(i);
    if (c) out.push({ node: c, field: node.fieldNameForChild(i) });
  }
  return out;
}

export function assertNoErrors(node: SyntaxNode): void {
  if (node.isError || node.isMissing) {
    throw new ShellParseError(`syntax error near "${node.text.slice(0, 40)}"`);
  }
  for (const { node: c } of children(node)) assertNoErrors(c);
}

export function appendUnquoted(text: string, parts: WordPart[]): void {
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (c === "\\" && i + 1 < text.length) {
      const n = text[i + 1] ?? "";
      if (n !== "\n") parts.push(charPart(n, true)); // backslash-newline is a line join
      i++;
    } else parts.push(charPart(c, false));
  }
}

function appendDoubleQuotedText(text: string, parts: WordPart[]): void {
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    const n = text[i + 1] ?? "";
    if (c === "\\" && '$`"\\\n'.includes(n) && n !== "") {
      if (n !== "\n") parts.push(charPart(n, true));
      i++;
    } else parts.push(charPart(c, true));
  }
}

/**
 * Groups nodes that touch: each group is one bash word. A gap made only of backslash-newline
 * line continuations also touches — bash joins `gi\<newline>t` into `git`, while tree-sitter
 * returns two words.
 */
export function groupAdjacent(nodes: readonly SyntaxNode[], source: string): SyntaxNode[][] {
  const groups: SyntaxNode[][] = [];
  for (const n of nodes) {
    const last = groups.at(-1);
    const prev = last?.at(-1);
    const gap = prev ? source.slice(prev.endIndex, n.startIndex) : " ";
    if (last && /^(\\\n)*$/.test(gap)) last.push(n);
    else groups.push([n]);
  }
  return groups;
}

/** Appends the characters (or run-time part) of one word node. */
export function appendNode(node: SyntaxNode, parts: WordPart[], source: string): void {
  switch (node.type) {
    case "word":
    case "variable_name":
    case "brace_expression":
    case "regex":
    case "extglob_pattern":
      appendUnquoted(node.text, parts);
      return;
    case "number":
      if (children(node).some((c) => c.node.isNamed)) parts.push(dynPart(node.text));
      else appendUnquoted(node.text, parts);
      return;
    case "raw_string":
      for (const ch of node.text.slice(1, -1)) parts.push(charPart(ch, true));
      return;
    case "ansi_c_string":
      for (const ch of decodeAnsiC(node.text.slice(2, -1))) parts.push(charPart(ch, true));
      return;
    case "string":
      appendDoubleQuoted(node, parts, source);
      return;
    case "translated_string": {
      const inner = children(node).find((c) => c.node.type === "string");
      if (inner) appendDoubleQuoted(inner.node, parts, source);
      else parts.push(dynPart(node.text));
      return;
    }
    case "concatenation": {
      let cursor = node.startIndex;
      for (const { node: c } of children(node)) {
        appendUnquoted(source.slice(cursor, c.startIndex), parts);
        appendNode(c, parts, source);
        cursor = c.endIndex;
      }
      appendUnquoted(source.slice(cursor, node.endIndex), parts);
      return;
    }
    default:
      if (!node.isNamed && node.type !== "$") appendUnquoted(node.text, parts);
      else if (node.type === "$") parts.push(charPart("$", false));
      else parts.push(dynPart(node.text)); // expansions, substitutions, unknown node types
  }
}

function appendDoubleQuoted(node: SyntaxNode, parts: WordPart[], source: string): void {
  let cursor = node.startIndex + 1;
  const end = node.endIndex - 1;
  for (const { node: c } of children(node)) {
    if (!c.isNamed) continue; // the quote characters
    appendDoubleQuotedText(source.slice(cursor, c.startIndex), parts);
    if (c.type === "string_content") appendDoubleQuotedText(c.text, parts);
    else parts.push(dynPart(c.text));
    cursor = c.endIndex;
  }
  appendDoubleQuotedText(source.slice(cursor, Math.max(cursor, end)), parts);
}
