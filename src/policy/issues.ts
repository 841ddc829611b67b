/** Where in a file something is; 1-based like every editor and compiler. */
export interface Position {
  line: number;
  column: number;
}

/**
 * One thing wrong (or worth a warning) in a config or profile file. `message` says what is
 * wrong, `expected` what would have been accepted, `fix` what to change. `path` is the dotted
 * key path inside the file ("validate.test.run"), empty for the whole file.
 */
export interface ConfigIssue {
  severity: "error" | "warning";
  code: string;
  file: string;
  path: string;
  line?: number;
  column?: number;
  message: string;
  expected?: string;
  fix?: string;
}

/** `file:line:col: message (expected …) — fix`, the shape editors and terminals link. */
export function formatIssue(issue: ConfigIssue): string {
  const where =
    issue.line === undefined ? issue.file : `${issue.file}:${issue.line}:${issue.column ?? 1}`;
  const expected = issue.expected ? ` (expected ${issue.expected})` : "";
  const fix = issue.fix ? ` — ${issue.fix}` : "";
  const prefix = issue.severity === "warning" ? "warning: " : "";
  return `${where}: ${prefix}${issue.message}${expected}${fix}`;
}

/** A file (or a resolved cascade) that must be refused; carries every issue found, not the first. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
    super(first ? `${formatIssue(first)}${more}` : "invalid configuration");
    this.issues = issues;
  }
}

export function isConfigError(error: unknown): error is ConfigError {
  return error instanceof ConfigError;
}

/** Dotted form of a key path; numeric segments become `[n]` ("setup[2]"). */
export function dottedPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}
