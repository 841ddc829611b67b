/**
 * One host a box may reach through the egress proxy, as a repository (`network:` in
 * .github/forge.yml) or a deployment (FORGE_EGRESS_SETUP, FORGE_EGRESS_CONTROLS) writes it:
 *
 *   registry.npmjs.org        an exact name, port 443
 *   *.pythonhosted.org        every name under that suffix (not the suffix itself), port 443
 *   pypi.example.com:8443     an explicit port
 *   10.0.0.5:3128, [::1]:9000 IPv4 and IPv6 literals (IPv6 always in brackets)
 *
 * No scheme, path, query, user or password: the proxy matches the CONNECT host and port only,
 * so anything else would be a promise it cannot keep. `*` alone, a wildcard anywhere but the
 * front, and a wildcard over a top-level domain are refused: they open far more than a phase
 * needs. The proxy (src/egress/allowlist.ts) parses its rules with this same function, so it
 * enforces exactly what a config was allowed to say.
 */
import { isIPv4, isIPv6 } from "node:net";

export const DEFAULT_EGRESS_PORT = 443;

export type HostEntryKind = "name" | "wildcard" | "ipv4" | "ipv6";

/** A parsed entry: `host` is lower-case, IPv6 without brackets, a wildcard keeps its `*.`. */
export interface HostEntry {
  host: string;
  port: number;
  kind: HostEntryKind;
}

export type HostEntryResult =
  | { ok: true; entry: HostEntry }
  | { ok: false; message: string; fix: string };

/** What an entry looks like, for error messages and schema descriptions. */
export const HOST_ENTRY_FORMS =
  "a host name, *.suffix, an IPv4 address or an [IPv6] address, with an optional :port (443 when absent)";

// Underscores: some real hosts (CDN and service records) carry them, and the proxy takes them.
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const PORT = /^[0-9]{1,5}$/;

const fail = (message: string, fix: string): HostEntryResult => ({ ok: false, message, fix });

export function parseHostEntry(raw: string): HostEntryResult {
  const text = raw.trim();
  const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
  if (text.trim() === "")
    return fail("an entry is empty", "write a host such as registry.npmjs.org");
  if (text.length > 300) return fail(`${shown} is longer than 300 characters`, "write one host");
  if (/\s/.test(text)) {
    return fail(`${shown} contains a space`, "write one host per entry, without spaces");
  }
  if (text.startsWith("!")) {
    return fail(
      `${shown} would remove a host; network lists are additive, so a repository can add hosts, never remove one`,
      "delete this entry",
    );
  }
  if (text.includes("://")) {
    const host = hostOfUrl(text);
    return fail(
      `${shown} is a URL; the proxy matches a host and port, not a scheme or a path`,
      host ? `write the host only: ${host}` : "write the host only, like registry.npmjs.org",
    );
  }
  if (text.includes("@")) {
    return fail(
      `${shown} names a user or a password`,
      "write the host only; credentials never go in a host list",
    );
  }
  const cut = text.search(/[/?#]/);
  if (cut >= 0) {
    return fail(
      `${shown} has a path; the proxy matches a host and port only`,
      `write the host only: ${text.slice(0, cut) || "registry.npmjs.org"}`,
    );
  }
  const split = splitPort(text, shown);
  if ("message" in split) return fail(split.message, split.fix);
  const { host, port, bracketed } = split;
  if (bracketed) {
    if (host.includes("%") || !isIPv6(host)) {
      return fail(`${shown} is not an IPv6 address`, "write an IPv6 address like [2001:db8::1]");
    }
    return { ok: true, entry: { host: canonicalIPv6(host), port, kind: "ipv6" } };
  }
  if (/^[0-9.]+$/.test(host)) {
    // Four decimal numbers, no leading zeros: 010.0.0.1 and 10.1 mean other addresses to
    // inet_aton than they seem to.
    if (!isIPv4(host)) {
      return fail(
        `${shown} is not an IPv4 address`,
        "write four numbers from 0 to 255, like 10.0.0.5",
      );
    }
    return { ok: true, entry: { host, port, kind: "ipv4" } };
  }
  // A fully qualified name's final dot names the same host.
  const name = host.toLowerCase().replace(/(?<=.)\.$/, "");
  if (name === "*") {
    return fail(
      "`*` alone would let the box reach every host",
      "name the hosts, or a suffix such as *.example.com",
    );
  }
  if (name.startsWith("*.")) {
    const suffix = name.slice(2);
    if (suffix.includes("*")) return wildcardFail(shown);
    const bad = nameProblem(suffix, shown);
    if (bad) return bad;
    if (isIPv4(suffix) || /^[0-9.]+$/.test(suffix)) return wildcardFail(shown);
    if (!suffix.includes(".")) {
      return fail(
        `${shown} covers a whole top-level domain`,
        "name a registrable domain after *., such as *.example.com",
      );
    }
    return { ok: true, entry: { host: name, port, kind: "wildcard" } };
  }
  if (name.includes("*")) return wildcardFail(shown);
  const bad = nameProblem(name, shown);
  if (bad) return bad;
  return { ok: true, entry: { host: name, port, kind: "name" } };
}

/** The entry's canonical text: what a list holds once parsed (`:443` left out). */
export function formatHostEntry(entry: Pick<HostEntry, "host" | "port">): string {
  const host = entry.host.includes(":") ? `[${entry.host}]` : entry.host;
  return entry.port === DEFAULT_EGRESS_PORT ? host : `${host}:${entry.port}`;
}

/** `host:port` as a refusal names it: the port always written, IPv6 in brackets. */
export function formatHostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The canonical text of a valid entry; throws on an invalid one (for trusted, checked input). */
export function canonicalHostEntry(text: string): string {
  const parsed = parseHostEntry(text);
  if (!parsed.ok) throw new Error(`${parsed.message} — ${parsed.fix}`);
  return formatHostEntry(parsed.entry);
}

function splitPort(
  text: string,
  shown: string,
): { host: string; port: number; bracketed: boolean } | { message: string; fix: string } {
  let host = text;
  let portText: string | undefined;
  let bracketed = false;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close < 0) {
      return { message: `${shown} has no closing ]`, fix: "write [IPv6]:port, like [::1]:9000" };
    }
    host = text.slice(1, close);
    bracketed = true;
    const rest = text.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) {
      return { message: `${shown} has text after ]`, fix: "write [IPv6]:port, like [::1]:9000" };
    }
    if (rest !== "") portText = rest.slice(1);
  } else {
    const colons = text.split(":").length - 1;
    if (colons > 1) {
      return {
        message: `${shown} looks like an IPv6 address without brackets`,
        fix: `write it in brackets: [${text}], or [${text}]:<port>`,
      };
    }
    if (colons === 1) {
      const at = text.lastIndexOf(":");
      host = text.slice(0, at);
      portText = text.slice(at + 1);
    }
  }
  if (host === "") return { message: `${shown} has no host`, fix: "write a host before the port" };
  if (portText === undefined) return { host, port: DEFAULT_EGRESS_PORT, bracketed };
  const port = Number(portText);
  if (!PORT.test(portText) || port < 1 || port > 65535) {
    return {
      message: `${shown} has ${JSON.stringify(portText)} where a port number belongs`,
      fix: "use a port from 1 to 65535, or leave it out for 443",
    };
  }
  return { host, port, bracketed };
}

function nameProblem(name: string, shown: string): HostEntryResult | null {
  const labels = name.split(".");
  const ok =
    name.length <= 253 &&
    labels.every((l) => LABEL.test(l)) &&
    // A name whose last label is all digits, or whose first starts 0x, reads as a short-form
    // address (inet_aton) to URL parsers and resolvers.
    !/^[0-9]+$/.test(labels[labels.length - 1] ?? "") &&
    !/^0x/i.test(labels[0] ?? "");
  if (ok) return null;
  return fail(
    `${shown} is not a host name`,
    "use letters, digits, -, _ and . (an international name in its xn-- form; an address as four numbers a.b.c.d)",
  );
}

function wildcardFail(shown: string): HostEntryResult {
  return fail(
    `${shown} has a * that is not a leading *. before a domain`,
    "write *.example.com to allow every name under example.com",
  );
}

/** One spelling per address: `[::0001]` and `[::1]` are the same entry. */
function canonicalIPv6(host: string): string {
  try {
    return new URL(`http://[${host}]/`).hostname.slice(1, -1);
  } catch {
    return host.toLowerCase();
  }
}

function hostOfUrl(text: string): string | null {
  try {
    const url = new URL(text);
    if (!url.hostname) return null;
    const port = url.port ? Number(url.port) : url.protocol === "http:" ? 80 : DEFAULT_EGRESS_PORT;
    return formatHostEntry({ host: url.hostname.replace(/^\[|\]$/g, ""), port });
  } catch {
    return null;
  }
}
