// Glob patterns given to the Glob tool (`pattern`) and the Grep tool (`glob`): could they match
// a secret path? These tools may include dot files, so a `*` here can match a leading dot.
import { BraceOverflowError, expandBraces } from "./brace-expansion.js";
import { credentialRule } from "./credential-paths.js";
import {
  credentialSegment,
  elementsFromParts,
  isLiteralOnly,
  patternRule,
} from "./glob-segment.js";
import { rootRule, type SecretHit, segmentRule } from "./secret-paths.js";
import { charPart, type WordPart } from "./shell-words.js";

const MAX_VARIANTS = 64;

/** `@(a|b)`, `!(x)`, `+(x)`, `*(x)`, `?(x)` → one variant per alternative, plus `*`. */
function extglobVariants(pattern: string): string[] {
  const group = /[@!+*?]\(([^()]*)\)/;
  const out: string[] = [];
  const todo = [pattern];
  while (todo.length > 0 && out.length < MAX_VARIANTS) {
    const p = todo.pop() as string;
    const m = group.exec(p);
    if (!m) {
      out.push(p);
      continue;
    }
    const before = p.slice(0, m.index);
    const after = p.slice(m.index + m[0].length);
    for (const alt of [...(m[1] ?? "").split("|"), "*"]) todo.push(before + alt + after);
  }
  if (todo.length > 0) throw new BraceOverflowError(pattern);
  return out;
}

function partsOf(pattern: string): WordPart[] {
  const parts: WordPart[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? "";
    if (c === "\\" && i + 1 < pattern.length) {
      parts.push(charPart(pattern[i + 1] ?? "", true));
      i++;
    } else parts.push(charPart(c, false));
  }
  return parts;
}

/** The secret a glob pattern could match, or a reason it cannot be checked, or null. */
export function globPatternHit(pattern: string): SecretHit | { reason: string } | null {
  let words: WordPart[][];
  try {
    words = extglobVariants(pattern).flatMap((v) =>
      expandBraces({ parts: partsOf(v), source: v }).map((w) => [...w.parts]),
    );
  } catch {
    return { reason: "the glob pattern expands to too many alternatives to check" };
  }
  for (const parts of words) {
    const segs: WordPart[][] = [[]];
    for (const p of parts) {
      if (p.kind === "char" && p.ch === "/") segs.push([]);
      else segs.at(-1)?.push(p);
    }
    const absolute = parts[0]?.kind === "char" && parts[0].ch === "/";
    let wildcardSeen = false;
    const elements = segs.map((s) => elementsFromParts(s, true));
    const creds = elements.map(credentialSegment);
    for (let i = 0; i < segs.length; i++) {
      const els = elements[i] ?? [];
      const last = i === segs.length - 1;
      const rootPosition = absolute && i === 1;
      const ctx = { mode: "path-tool", last, namesDirItself: true } as const;
      if (isLiteralOnly(els)) {
        const name = els.map((e) => (e.kind === "lit" ? e.ch : "")).join("");
        if (name === ".." && wildcardSeen) {
          return { reason: "the glob pattern climbs with .. after a wildcard" };
        }
        const rule =
          segmentRule(name, ctx) ??
          (rootPosition ? rootRule(name) : null) ??
          credentialRule(creds, i, ctx);
        if (rule) return { rule, what: name };
        continue;
      }
      wildcardSeen = true;
      const rule = patternRule(els, { ...ctx, rootPosition }) ?? credentialRule(creds, i, ctx);
      if (rule) return { rule, what: pattern };
    }
  }
  return null;
}
