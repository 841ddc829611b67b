// One path segment of a glob or partly computed word, as match elements, and the question
// the guard asks of it: "could this match a secret name?".
//
// Semantics (bash defaults, no dotglob): an unquoted `*` or `?` at the start of a segment does
// not match a leading `.`; a run-time part (`$X`) can be anything, dot included. A bracket
// expression is treated as able to match a leading dot (bash's `[.]env` does not match `.env`,
// but assuming it might only adds refusals — fail closed).
import type { CredentialSegment } from "./credential-paths.js";
import {
  ENV_TEMPLATES,
  type PathMode,
  ROOT_PROBES,
  SECRET_PROBES,
  type SecretRuleName,
} from "./secret-paths.js";
import { bracketEnd, type WordPart } from "./shell-words.js";

export type GlobElement =
  | { readonly kind: "lit"; readonly ch: string }
  | { readonly kind: "star"; readonly dotOk: boolean }
  | { readonly kind: "one" }
  | { readonly kind: "class"; readonly regex: string };

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alpha: "a-zA-Z",
  digit: "0-9",
  alnum: "a-zA-Z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: "\\s",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9a-fA-F",
  word: "\\w",
  print: " -~",
  graph: "!-~",
  cntrl: "\\x00-\\x1f",
};

function escapeClassChar(ch: string): string {
  return /[\\\]^-]/.test(ch) ? `\\${ch}` : ch;
}

function classRegex(members: readonly string[]): string {
  let i = 0;
  let negated = false;
  if (members[0] === "!" || members[0] === "^") {
    negated = true;
    i = 1;
  }
  let body = "";
  for (; i < members.length; i++) {
    const ch = members[i] ?? "";
    if (ch === "[" && members[i + 1] === ":") {
      const close = members.indexOf(":", i + 2);
      if (close > 0 && members[close + 1] === "]") {
        const name = members.slice(i + 2, close).join("");
        body += POSIX_CLASSES[name] ?? "\\s\\S";
        i = close + 1;
        continue;
      }
    }
    if (members[i + 1] === "-" && i + 2 < members.length) {
      body += `${escapeClassChar(ch)}-${escapeClassChar(members[i + 2] ?? "")}`;
      i += 2;
      continue;
    }
    body += escapeClassChar(ch);
  }
  if (body === "") return negated ? "[\\s\\S]" : "(?!)";
  return negated ? `[^${body}]` : `[${body}]`;
}

/** Elements of one segment given as word parts (no `/` inside). */
export function elementsFromParts(
  parts: readonly WordPart[],
  starMatchesDot = false,
): GlobElement[] {
  const out: GlobElement[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (!p) continue;
    if (p.kind === "dyn") {
      out.push({ kind: "star", dotOk: true });
      continue;
    }
    if (!p.quoted && p.ch === "*") out.push({ kind: "star", dotOk: starMatchesDot });
    else if (!p.quoted && p.ch === "?") out.push({ kind: "one" });
    else if (!p.quoted && p.ch === "[" && bracketEnd(parts, i) > 0) {
      const end = bracketEnd(parts, i);
      const members = parts.slice(i + 1, end).map((m) => (m.kind === "char" ? m.ch : ""));
      out.push({ kind: "class", regex: classRegex(members) });
      i = end;
    } else out.push({ kind: "lit", ch: p.ch });
  }
  // `**` without globstar is `*`; several stars in a row match what one does
  return out.filter((e, i) => !(e.kind === "star" && out[i - 1]?.kind === "star"));
}

export function hasLiteral(elements: readonly GlobElement[]): boolean {
  return elements.some((e) => e.kind === "lit");
}

export function isLiteralOnly(elements: readonly GlobElement[]): boolean {
  return elements.every((e) => e.kind === "lit");
}

export function literalPrefix(elements: readonly GlobElement[]): string {
  let s = "";
  for (const e of elements) {
    if (e.kind !== "lit") break;
    s += e.ch;
  }
  return s;
}

function elementRegex(e: GlobElement): string {
  switch (e.kind) {
    case "lit":
      return e.ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    case "star":
      return ".*";
    case "one":
      return ".";
    case "class":
      return e.regex;
  }
}

/** Case-insensitive matcher for a whole segment name. */
export function segmentRegExp(elements: readonly GlobElement[]): RegExp {
  const first = elements[0];
  const noLeadingDot = (first?.kind === "star" && !first.dotOk) || first?.kind === "one";
  const body = elements.map(elementRegex).join("");
  return new RegExp(`^${noLeadingDot ? "(?!\\.)" : ""}${body}$`, "is");
}

/**
 * True when the last characters of every name the segment matches are spelled by the
 * pattern itself (literals, `?`, classes — not absorbed by a `*`): `*.pem`, `key.p?m`.
 */
export function coversSuffix(elements: readonly GlobElement[], suffix: string): boolean {
  if (elements.length < suffix.length) return false;
  const tail = elements.slice(elements.length - suffix.length);
  return tail.every((e, i) => {
    const ch = suffix[i] ?? "";
    if (e.kind === "star") return false;
    return new RegExp(`^${elementRegex(e)}$`, "is").test(ch);
  });
}

export interface PatternContext {
  readonly mode: PathMode;
  readonly last: boolean;
  readonly namesDirItself: boolean;
  /** The segment may be the first one under `/` (for `/proc`, `/sys`). */
  readonly rootPosition: boolean;
}

/** The secret rule a non-literal segment could match, or null. */
export function patternRule(
  elements: readonly GlobElement[],
  ctx: PatternContext,
): SecretRuleName | null {
  if (!hasLiteral(elements)) return null; // `*`, `$X`: names nothing (see the caller)
  const prefix = literalPrefix(elements).toLowerCase();
  if (prefix.startsWith(".env")) return "dotenv"; // any completion is a .env* name
  const re = segmentRegExp(elements);
  for (const probe of SECRET_PROBES) {
    if (ctx.mode === "path-tool" && ENV_TEMPLATES.has(probe.name)) continue;
    if (probe.rule === "secrets-dir" && ctx.last && !ctx.namesDirItself) continue;
    if (re.test(probe.name)) return probe.rule;
  }
  if (coversSuffix(elements, ".pem")) return "pem";
  // `cred*`, `*credentials*`: the pattern must spell part of the name, so `*.json` (which
  // could match credentials.json too) stays usable.
  const spelled = elements.map((e) => (e.kind === "lit" ? e.ch : " ")).join("");
  if (/cred/i.test(spelled) && re.test("credentials.json")) return "credentials-file";
  if (/^id_(rsa|ed25519|ecdsa|dsa)/.test(prefix)) return "ssh-key";
  if (ctx.rootPosition) {
    for (const probe of ROOT_PROBES) if (re.test(probe.name)) return probe.rule;
  }
  return null;
}

/** A segment as the credential rules read it: a literal name, a pattern, or a bare wildcard. */
export function credentialSegment(elements: readonly GlobElement[]): CredentialSegment {
  if (isLiteralOnly(elements)) {
    return {
      lit: elements
        .map((e) => (e.kind === "lit" ? e.ch : ""))
        .join("")
        .toLowerCase(),
    };
  }
  return hasLiteral(elements) ? { re: segmentRegExp(elements) } : { wild: true };
}
