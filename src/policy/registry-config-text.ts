/**
 * Readers for the few keys of package-manager configuration files that name a registry
 * (src/runner/host-registries.ts reads the files). Each reads a subset of its format and
 * ignores what it does not understand: the worst a missed line does is leave the public
 * registry on the allowlist, and setup then fails naming the refused host.
 */

/** npmrc and pip.conf: `key = value` lines in `[section]`s ("" before any); `;`/`#` comments. */
export function parseIni(text: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = { "": {} };
  let section = "";
  let last: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s*[;#]/.test(raw) || raw.trim() === "") continue;
    // pip: an indented line continues the previous value (extra-index-url on several lines).
    if (/^\s/.test(raw) && last !== null && !raw.includes("=")) {
      const table = out[section] as Record<string, string>;
      table[last] = `${table[last] ?? ""}\n${raw.trim()}`;
      continue;
    }
    const line = raw.trim();
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = (header[1] as string).trim();
      out[section] ??= {};
      last = null;
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    const table = out[section] ?? {};
    table[key] = unquote(line.slice(eq + 1).trim());
    out[section] = table;
    last = key;
  }
  return out;
}

/**
 * The string values of a TOML file as dotted keys: `[source.crates-io]` + `replace-with =
 * "x"` → `source.crates-io.replace-with`; dotted keys, quoted keys and one level of inline
 * table (`crates-io = { replace-with = "x" }`) too. Arrays, numbers and multi-line strings
 * are skipped.
 */
export function parseTomlStrings(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let table: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = stripTomlComment(raw).trim();
    if (line === "") continue;
    const header = /^\[\s*([^[\]]+?)\s*\]$/.exec(line);
    if (header) {
      table = splitTomlKey(header[1] as string);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = [...table, ...splitTomlKey(line.slice(0, eq))];
    const value = line.slice(eq + 1).trim();
    if (value.startsWith("{") && value.endsWith("}")) {
      for (const pair of value.slice(1, -1).split(",")) {
        const at = pair.indexOf("=");
        if (at <= 0) continue;
        const inner = tomlString(pair.slice(at + 1).trim());
        if (inner !== null) out[[...key, ...splitTomlKey(pair.slice(0, at))].join(".")] = inner;
      }
      continue;
    }
    const string = tomlString(value);
    if (string !== null) out[key.join(".")] = string;
  }
  return out;
}

/** go's env file (`go env -w` writes it): `KEY=value` lines. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/.exec(raw);
    if (m) out[m[1] as string] = unquote((m[2] as string).trim());
  }
  return out;
}

/** yarn 1's `.yarnrc`: `registry "https://…"` lines. */
export function parseYarnrc(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const m = /^\s*([^\s#"]+|"[^"]+")\s+(.+?)\s*$/.exec(raw);
    if (m && !raw.trim().startsWith("#")) out[unquote(m[1] as string)] = unquote(m[2] as string);
  }
  return out;
}

function unquote(value: string): string {
  const m = /^(["'])(.*)\1$/.exec(value);
  return m ? (m[2] as string) : value;
}

function tomlString(value: string): string | null {
  const m = /^"((?:[^"\\]|\\.)*)"$|^'([^']*)'$/.exec(value);
  if (!m) return null;
  return m[2] ?? (m[1] as string).replace(/\\(["\\])/g, "$1");
}

function splitTomlKey(key: string): string[] {
  const parts: string[] = [];
  for (const m of key.matchAll(/\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/g)) {
    parts.push(m[1] ?? m[2] ?? (m[3] as string));
  }
  return parts;
}

function stripTomlComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === "\\" && quote === '"') i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "#") return line.slice(0, i);
  }
  return line;
}
