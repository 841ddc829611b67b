/**
 * The values in a committed file on a secret path (`.env`, `secrets/…`, `*.pem`, ssh keys).
 * Agents never see such a file, but the controls run on the repository as committed, so their
 * output can carry its values, and that output reaches the reviewer's prompt and the report:
 * registered as known secrets, they are redacted wherever they appear, in any encoding.
 * Values, not whole lines: a comment or a variable's name is not secret, and registering it
 * would redact ordinary text everywhere.
 */
const ASSIGNMENT = /^(?:export\s+)?[A-Za-z_][\w.-]*\s*[=:]\s*(.*)$/;
const COMMENT = /^(?:#|;|\/\/)/;
/** A line without a name (a key file's body, a bare token) counts from this length on. */
const MIN_BARE_LENGTH = 16;

export function secretFileValues(text: string): string[] {
  if (text.includes("\0")) return [];
  const values: string[] = [];
  // A PEM block whole: the registry also takes its body lines one by one.
  if (text.includes("-----BEGIN ")) values.push(text);
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || COMMENT.test(line)) continue;
    const assigned = ASSIGNMENT.exec(line);
    if (assigned) {
      const value = unquote((assigned[1] ?? "").replace(/\s+#.*$/, "").trim());
      if (value) values.push(value);
    } else if (!/\s/.test(line) && line.length >= MIN_BARE_LENGTH) {
      values.push(line);
    }
  }
  return values;
}

function unquote(value: string): string {
  const q = value[0];
  return (q === '"' || q === "'") && value.endsWith(q) && value.length > 1
    ? value.slice(1, -1)
    : value;
}
