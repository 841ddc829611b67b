// Turns a tree-sitter-bash syntax tree into the guard's flat ShellScript.
//
// tree-sitter is error-tolerant and its tree is not always bash's view, so this file corrects
// the known differences instead of trusting node boundaries:
// - any ERROR or MISSING node → ShellParseError (the guard denies: fail closed);
// - adjacent argument nodes with no space between them are ONE bash word (`$"x"` comes back as
//   two nodes `$` and `"x"`);
// - words after a redirection (`git >out push`) come back as extra redirect destinations, but
//   bash passes them as arguments: they are appended to argv.
import { expandBraces } from "./brace-expansion.js";
import {
  type Assignment,
  type Redirect,
  ShellParseError,
  type ShellScript,
  type SimpleCommand,
} from "./shell-script.js";
import { expandTilde, type Word, type WordPart } from "./shell-words.js";
import {
  appendNode,
  assertNoErrors,
  children,
  groupAdjacent,
  type SyntaxNode,
  WORD_TYPES,
} from "./tree-words.js";

export type { SyntaxNode } from "./tree-words.js";

export class TreeCollector {
  readonly commands: SimpleCommand[] = [];
  readonly looseWords: Word[] = [];
  readonly assignments: Assignment[] = [];
  readonly redirects: Redirect[] = [];
  readonly heredocs: string[] = [];

  constructor(
    private readonly source: string,
    private readonly home: string | undefined,
  ) {}

  script(): ShellScript {
    return {
      commands: this.commands,
      looseWords: this.looseWords,
      assignments: this.assignments,
      redirects: this.redirects,
      heredocs: this.heredocs,
    };
  }

  visit(node: SyntaxNode): void {
    switch (node.type) {
      case "comment":
        return;
      case "command":
        this.command(node, []);
        return;
      case "redirected_statement":
        this.redirected(node);
        return;
      case "declaration_command":
        this.declaration(node);
        return;
      case "variable_assignment":
        this.assignments.push(this.assignment(node));
        return;
      case "file_redirect":
      case "herestring_redirect":
      case "heredoc_redirect": {
        const r = this.redirect(node);
        this.redirects.push(...r.redirects);
        if (r.extras.length > 0) throw new ShellParseError("words after a redirection");
        return;
      }
      case "heredoc_body":
        this.heredocs.push(this.heredocText(node));
        return;
      default:
        if (WORD_TYPES.has(node.type)) {
          this.looseWords.push(...this.words([node], true));
          return;
        }
        for (const { node: c } of children(node)) if (c.isNamed) this.visit(c);
    }
  }

  /** Statements and words hidden inside a word: `$(…)`, `<(…)`, `${x:-word}`. */
  private nested(node: SyntaxNode): void {
    if (node.type === "command_substitution" || node.type === "process_substitution") {
      for (const { node: c } of children(node)) if (c.isNamed) this.visit(c);
      return;
    }
    for (const { node: c } of children(node)) {
      if (!c.isNamed) continue;
      if (node.type === "expansion" && WORD_TYPES.has(c.type)) {
        this.looseWords.push(...this.words([c], true));
      } else this.nested(c);
    }
  }

  /** One written word (a group of touching nodes) → the words bash makes of it. */
  private words(group: readonly SyntaxNode[], braces: boolean): Word[] {
    const parts: WordPart[] = [];
    group.forEach((n, i) => {
      const next = group[i + 1];
      // `$"…"`: a translated string (tree-sitter sometimes splits off the `$`)
      if (n.type === "$" && next && this.source[next.startIndex] === '"') return;
      appendNode(n, parts, this.source);
    });
    for (const n of group) this.nested(n);
    const first = group[0];
    const last = group.at(-1);
    const source = first && last ? this.source.slice(first.startIndex, last.endIndex) : "";
    const word = expandTilde({ parts, source }, this.home);
    return braces ? expandBraces(word) : [word];
  }

  private assignment(node: SyntaxNode): Assignment {
    const kids = children(node);
    const name = kids.find((c) => c.field === "name")?.node.text ?? "";
    const valueNode = kids.find((c) => c.field === "value")?.node;
    if (!valueNode) return { name, value: { parts: [], source: "" } };
    if (valueNode.type === "array") {
      for (const { node: c } of children(valueNode)) if (c.isNamed) this.visit(c);
      return { name, value: null };
    }
    // bash does no brace expansion on assignment values; group touching value nodes
    const valueNodes = kids.filter((c) => c.field === "value").map((c) => c.node);
    const [value] = this.words(valueNodes, false);
    return { name, value: value ?? null };
  }

  private heredocText(body: SyntaxNode): string {
    let text = "";
    let cursor = body.startIndex;
    for (const { node: c } of children(body)) {
      text += this.source.slice(cursor, c.startIndex);
      if (c.type === "heredoc_content") text += c.text;
      else {
        text += " "; // a run-time part separates tokens
        this.nested(c);
      }
      cursor = c.endIndex;
    }
    return text + this.source.slice(cursor, body.endIndex);
  }

  private redirect(node: SyntaxNode): {
    redirects: Redirect[];
    extras: SyntaxNode[];
    heredoc: boolean;
  } {
    const kids = children(node);
    const op = kids.find((c) => !c.node.isNamed)?.node.text ?? "";
    if (node.type === "heredoc_redirect") {
      const redirects: Redirect[] = [{ op, target: null }];
      const extras: SyntaxNode[] = [];
      for (const { node: c, field } of kids) {
        if (c.type === "heredoc_body") this.heredocs.push(this.heredocText(c));
        else if (field === "argument") extras.push(c);
        else if (field === "redirect") {
          const inner = this.redirect(c);
          redirects.push(...inner.redirects);
          extras.push(...inner.extras);
        } else if (c.isNamed && c.type !== "heredoc_start" && c.type !== "heredoc_end") {
          this.visit(c); // `cat <<EOF | git push`: the rest of the pipeline sits in here
        }
      }
      return { redirects, extras, heredoc: true };
    }
    const targets = kids
      .filter((c) => c.field === "destination" || (c.node.isNamed && WORD_TYPES.has(c.node.type)))
      .map((c) => c.node);
    const [first, ...rest] = groupAdjacent(targets, this.source);
    const target = first ? (this.words(first, true)[0] ?? null) : null;
    return {
      redirects: [{ op, target }],
      extras: rest.flat(),
      heredoc: node.type === "herestring_redirect",
    };
  }

  private redirected(node: SyntaxNode): void {
    const kids = children(node);
    const body = kids.find((c) => c.field === "body")?.node;
    const redirectNodes = kids.filter((c) => c.node !== body && c.node.isNamed);
    if (body?.type === "command") {
      this.command(
        body,
        redirectNodes.map((c) => c.node),
      );
      return;
    }
    if (body) this.visit(body);
    for (const { node: r } of redirectNodes) {
      const res = this.redirect(r);
      this.redirects.push(...res.redirects);
      if (res.extras.length > 0) {
        throw new ShellParseError("words after the redirection of a compound command");
      }
    }
  }

  private command(node: SyntaxNode, outerRedirects: SyntaxNode[]): void {
    const assignments: Assignment[] = [];
    const wordNodes: SyntaxNode[] = [];
    const redirects: Redirect[] = [];
    const extras: SyntaxNode[] = [];
    let heredoc = false;
    const takeRedirect = (r: SyntaxNode) => {
      const res = this.redirect(r);
      redirects.push(...res.redirects);
      extras.push(...res.extras);
      heredoc ||= res.heredoc;
    };
    for (const { node: c, field } of children(node)) {
      if (c.type === "variable_assignment" && wordNodes.length === 0) {
        assignments.push(this.assignment(c));
      } else if (field === "redirect" || c.type.endsWith("_redirect")) takeRedirect(c);
      else if (field === "name") {
        const inner = children(c).map((k) => k.node);
        wordNodes.push(...(inner.length > 0 ? inner : [c]));
      } else if (field === "argument") wordNodes.push(c);
      else if (c.isNamed) this.visit(c);
    }
    for (const r of outerRedirects) takeRedirect(r);
    const words = groupAdjacent(wordNodes, this.source).flatMap((g) => this.words(g, true));
    // extra destinations come after all inline arguments (they follow a redirection)
    words.push(...groupAdjacent(extras, this.source).flatMap((g) => this.words(g, true)));
    this.commands.push({ assignments, words, redirects, stdinFromHeredoc: heredoc });
  }

  private declaration(node: SyntaxNode): void {
    const assignments: Assignment[] = [];
    const wordNodes: SyntaxNode[] = [];
    for (const { node: c } of children(node)) {
      if (c.type === "variable_assignment") assignments.push(this.assignment(c));
      else wordNodes.push(c); // the keyword (`export`, `local`, …), options, bare names
    }
    const words = groupAdjacent(wordNodes, this.source).flatMap((g) => this.words(g, true));
    this.commands.push({ assignments, words, redirects: [], stdinFromHeredoc: false });
  }
}

/** The flat script for a parsed tree; throws ShellParseError on any ERROR/MISSING node. */
export function scriptFromTree(
  root: SyntaxNode,
  source: string,
  home: string | undefined,
): ShellScript {
  assertNoErrors(root);
  const collector = new TreeCollector(source, home);
  collector.visit(root);
  return collector.script();
}
