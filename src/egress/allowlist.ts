// What a box may reach (SPEC R4.6): the allowlist entries, the matcher on a CONNECT target, and
// the address classes the proxy refuses after it resolved a name. Pure: no sockets, no DNS.
import { BlockList, isIP } from "node:net";
import { DEFAULT_EGRESS_PORT, parseHostEntry } from "../policy/egress-entry.js";

/**
 * One allowed target. `host` is lower-cased and one of: an exact name, `*.suffix` (any subdomain
 * of suffix, never the suffix itself), a canonical IPv4 literal, or a canonical IPv6 literal
 * without brackets.
 */
export interface EgressRule {
  host: string;
  port: number;
}

export type AddressClass = "loopback" | "private" | "link-local" | "unspecified" | "public";

/** A deployment or repository wrote an entry the proxy cannot enforce as meant. */
export class EgressEntryError extends Error {
  override readonly name = "EgressEntryError";
  constructor(
    readonly entry: string,
    reason: string,
  ) {
    super(`egress entry "${entry}": ${reason}`);
  }
}

export { DEFAULT_EGRESS_PORT };

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * `host`, `host:port`, `*.suffix[:port]`, `a.b.c.d[:port]`, `[v6][:port]`; port 443 when absent.
 * The grammar is the policy's (one parser: the proxy enforces exactly what a config accepted).
 */
export function parseEgressEntry(text: string): EgressRule {
  const parsed = parseHostEntry(text);
  if (!parsed.ok) throw new EgressEntryError(text, `${parsed.message} — ${parsed.fix}`);
  return { host: parsed.entry.host, port: parsed.entry.port };
}

/** A CONNECT target or URL host as the matcher compares it: lower-cased, no trailing dot. */
export function normalTargetHost(host: string): string {
  const inner = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const ip = canonicalIp(inner);
  if (ip) return ip;
  const h = inner.toLowerCase();
  return h.endsWith(".") ? h.slice(0, -1) : h;
}

/** A normalised target host the proxy will look at: an IP literal or a well-formed name. */
export function isTargetHost(host: string): boolean {
  if (isIP(host)) return true;
  const labels = host.split(".");
  return host.length <= 253 && labels.every((l) => LABEL.test(l));
}

/**
 * The rule allowing host:port, or null. An exact rule wins over a wildcard: only an exact one
 * may reach a private address (proxy.ts), so which one matched matters.
 */
export function matchEgress(
  rules: readonly EgressRule[],
  host: string,
  port: number,
): EgressRule | null {
  const h = normalTargetHost(host);
  const samePort = rules.filter((r) => r.port === port);
  const exact = samePort.find((r) => r.host === h);
  if (exact) return exact;
  if (isIP(h)) return null;
  return samePort.find((r) => isWildcard(r) && h.endsWith(r.host.slice(1))) ?? null;
}

export function isWildcard(rule: EgressRule): boolean {
  return rule.host.startsWith("*.");
}

/** Canonical text of an IP literal (IPv6 compressed, lower-case), or null for anything else. */
export function canonicalIp(text: string): string | null {
  const kind = isIP(text);
  if (kind === 4) return text;
  if (kind === 6) return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  return null;
}

type Refused = Exclude<AddressClass, "public">;
const RANGES: [Refused, string, number, "ipv4" | "ipv6"][] = [
  ["unspecified", "0.0.0.0", 8, "ipv4"], // "this network": Linux connects 0.0.0.0 to itself
  ["loopback", "127.0.0.0", 8, "ipv4"],
  ["private", "10.0.0.0", 8, "ipv4"],
  ["private", "172.16.0.0", 12, "ipv4"],
  ["private", "192.168.0.0", 16, "ipv4"],
  // Shared address space: carrier NAT, and the tailnet addresses of Tailscale — inside hosts.
  ["private", "100.64.0.0", 10, "ipv4"],
  ["link-local", "169.254.0.0", 16, "ipv4"], // 169.254.169.254: the cloud metadata service
  ["unspecified", "::", 128, "ipv6"],
  ["loopback", "::1", 128, "ipv6"],
  ["private", "fc00::", 7, "ipv6"],
  ["private", "fec0::", 10, "ipv6"], // deprecated site-local, still routed inside some sites
  ["link-local", "fe80::", 10, "ipv6"],
];
const ORDER: Refused[] = ["unspecified", "loopback", "link-local", "private"];
const lists = new Map<Refused, BlockList>(ORDER.map((c) => [c, new BlockList()]));
for (const [cls, net, prefix, family] of RANGES) lists.get(cls)?.addSubnet(net, prefix, family);

/**
 * The class of an IP address. An IPv6 address carrying an IPv4 one (mapped ::ffff:a.b.c.d,
 * compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d) is the class of that IPv4 address: a connection
 * to it ends there. Everything else — documentation and benchmark ranges included — is public.
 */
export function classifyAddress(ip: string): AddressClass {
  const kind = isIP(ip);
  if (kind === 0) throw new Error(`not an IP address: ${ip}`);
  if (kind === 6) {
    const v4 = embeddedIpv4(ip);
    if (v4) return classifyAddress(v4);
  }
  const family = kind === 4 ? "ipv4" : "ipv6";
  return ORDER.find((cls) => lists.get(cls)?.check(ip, family)) ?? "public";
}

/** The IPv4 address inside a mapped, compatible or NAT64 IPv6 address, else null. */
export function embeddedIpv4(ip: string): string | null {
  const g = ipv6Groups(ip);
  if (!g) return null;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const mapped = zero(0, 5) && g[5] === 0xffff;
  const compatible = zero(0, 6) && (g[6] ?? 0) !== 0;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6);
  if (!mapped && !compatible && !nat64) return null;
  const hi = g[6] ?? 0;
  const lo = g[7] ?? 0;
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tail allowed), or null. */
function ipv6Groups(ip: string): number[] | null {
  if (isIP(ip) !== 6) return null;
  let text = ip.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const part = (s: string) => (s === "" ? [] : s.split(":").map((x) => Number.parseInt(x, 16)));
  const h = part(head);
  const t = tail === undefined ? [] : part(tail);
  const fill = tail === undefined ? 0 : 8 - h.length - t.length;
  return [...h, ...new Array<number>(fill).fill(0), ...t];
}
