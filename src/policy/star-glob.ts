// Patterns whose only wildcard is `*` (any run of characters, empty included): the form of
// Claude Code's `Bash(…)` permission rules. Two questions the builder.allow check asks.

/** Does `glob` match the whole of `text`? */
export function starMatch(glob: string, text: string): boolean {
  const re = new RegExp(
    `^${glob
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
    "s",
  );
  return re.test(text);
}

/**
 * Is there a text both globs match? Exact for this language: a star on either side may
 * absorb the other side's next character (a literal or, matching empty, the other star).
 * Memoised over positions, so the cost is at most |a| × |b| steps.
 */
export function starIntersect(a: string, b: string): boolean {
  const seen = new Set<number>();
  const width = b.length + 1;
  const visit = (i: number, j: number): boolean => {
    if (i === a.length && j === b.length) return true;
    const key = i * width + j;
    if (seen.has(key)) return false;
    seen.add(key);
    const ca = a[i];
    const cb = b[j];
    if (ca === "*" && (visit(i + 1, j) || (j < b.length && visit(i, j + 1)))) return true;
    if (cb === "*" && (visit(i, j + 1) || (i < a.length && visit(i + 1, j)))) return true;
    return ca !== undefined && cb !== undefined && ca !== "*" && cb !== "*" && ca === cb
      ? visit(i + 1, j + 1)
      : false;
  };
  return visit(0, 0);
}
