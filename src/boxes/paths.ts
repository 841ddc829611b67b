import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** Absolute path: relative ones are taken against `base` (the workspace). */
export function absUnder(base: string, p: string): string {
  return isAbsolute(p) ? resolve(p) : resolve(base, p);
}

/** realpath when the path exists (bwrap binds need existing sources), else the path itself. */
export function real(p: string): string {
  return existsSync(p) ? realpathSync(p) : p;
}

/** `a` is a strict ancestor directory of `b`. */
export function isStrictAncestor(a: string, b: string): boolean {
  const rel = relative(a, b);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** `p` is `dir` or lies inside it. */
export function isWithin(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

export type PathKind = "dir" | "file" | "missing" | "symlink";

export function pathKind(p: string): PathKind {
  try {
    const l = lstatSync(p);
    if (l.isSymbolicLink()) return "symlink";
    return statSync(p).isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}
