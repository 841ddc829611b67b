// The host entries of `network:` and FORGE_EGRESS_SETUP/CONTROLS, and the proof that the
// policy's parser and the proxy's (src/egress/allowlist.ts) read every entry the same way.
import { describe, expect, it } from "vitest";
import { formatHostEntry, formatHostPort, parseHostEntry } from "../../src/policy/egress-entry.js";

const ok = (text: string) => {
  const r = parseHostEntry(text);
  if (!r.ok) throw new Error(`${text}: ${r.message}`);
  return r.entry;
};
const refusal = (text: string) => {
  const r = parseHostEntry(text);
  if (r.ok) throw new Error(`${text} was accepted`);
  return `${r.message} — ${r.fix}`;
};

describe("parseHostEntry: what an entry may be", () => {
  it("reads names, wildcards, ports and IP literals, port 443 when none is written", () => {
    expect(ok("registry.npmjs.org")).toEqual({
      host: "registry.npmjs.org",
      port: 443,
      kind: "name",
    });
    expect(ok("*.pythonhosted.org")).toEqual({
      host: "*.pythonhosted.org",
      port: 443,
      kind: "wildcard",
    });
    expect(ok("pypi.example.com:8443")).toEqual({
      host: "pypi.example.com",
      port: 8443,
      kind: "name",
    });
    expect(ok("10.0.0.5:3128")).toEqual({ host: "10.0.0.5", port: 3128, kind: "ipv4" });
    expect(ok("[::1]:9000")).toEqual({ host: "::1", port: 9000, kind: "ipv6" });
    expect(ok("[2001:DB8::0001]")).toEqual({ host: "2001:db8::1", port: 443, kind: "ipv6" });
    expect(ok("localhost:4873")).toMatchObject({ host: "localhost", port: 4873 });
    expect(ok("Registry.NPMJS.org.")).toMatchObject({ host: "registry.npmjs.org" });
    expect(ok(" pypi.org ")).toMatchObject({ host: "pypi.org" });
  });

  it("writes one canonical text per entry", () => {
    expect(formatHostEntry(ok("Registry.npmjs.org:443"))).toBe("registry.npmjs.org");
    expect(formatHostEntry(ok("[::0001]:9000"))).toBe("[::1]:9000");
    expect(formatHostEntry(ok("*.Example.com:8443"))).toBe("*.example.com:8443");
    expect(formatHostPort("::1", 443)).toBe("[::1]:443");
    expect(formatHostPort("evil.example", 443)).toBe("evil.example:443");
  });

  it("refuses what the proxy could not enforce as written, saying what to write", () => {
    expect(refusal("https://pypi.example.com/simple")).toBe(
      '"https://pypi.example.com/simple" is a URL; the proxy matches a host and port, not a scheme or a path — write the host only: pypi.example.com',
    );
    expect(refusal("http://10.0.0.5:3141/root")).toBe(
      '"http://10.0.0.5:3141/root" is a URL; the proxy matches a host and port, not a scheme or a path — write the host only: 10.0.0.5:3141',
    );
    expect(refusal("pypi.org/simple")).toBe(
      '"pypi.org/simple" has a path; the proxy matches a host and port only — write the host only: pypi.org',
    );
    expect(refusal("user:pw@mirror.example.com")).toBe(
      '"user:pw@mirror.example.com" names a user or a password — write the host only; credentials never go in a host list',
    );
    expect(refusal("*")).toBe(
      "`*` alone would let the box reach every host — name the hosts, or a suffix such as *.example.com",
    );
    expect(refusal("*.com")).toBe(
      '"*.com" covers a whole top-level domain — name a registrable domain after *., such as *.example.com',
    );
    expect(refusal("a.*.example.com")).toBe(
      '"a.*.example.com" has a * that is not a leading *. before a domain — write *.example.com to allow every name under example.com',
    );
    expect(refusal("::1")).toBe(
      '"::1" looks like an IPv6 address without brackets — write it in brackets: [::1], or [::1]:<port>',
    );
    expect(refusal("[::1")).toBe('"[::1" has no closing ] — write [IPv6]:port, like [::1]:9000');
    expect(refusal("[10.0.0.1]")).toBe(
      '"[10.0.0.1]" is not an IPv6 address — write an IPv6 address like [2001:db8::1]',
    );
    expect(refusal("pypi.org:0")).toBe(
      '"pypi.org:0" has "0" where a port number belongs — use a port from 1 to 65535, or leave it out for 443',
    );
    expect(refusal("pypi.org:70000")).toMatch(/"70000" where a port number belongs/);
    expect(refusal("pypi.org:")).toMatch(/"" where a port number belongs/);
    expect(refusal("256.1.1.1")).toBe(
      '"256.1.1.1" is not an IPv4 address — write four numbers from 0 to 255, like 10.0.0.5',
    );
    expect(refusal("010.0.0.1")).toMatch(/is not an IPv4 address/);
    expect(refusal("bücher.example")).toBe(
      '"bücher.example" is not a host name — use letters, digits, -, _ and . (an international name in its xn-- form; an address as four numbers a.b.c.d)',
    );
    expect(refusal("two words")).toBe(
      '"two words" contains a space — write one host per entry, without spaces',
    );
    expect(refusal("!registry.npmjs.org")).toBe(
      '"!registry.npmjs.org" would remove a host; network lists are additive, so a repository can add hosts, never remove one — delete this entry',
    );
    expect(refusal("")).toBe("an entry is empty — write a host such as registry.npmjs.org");
    expect(refusal("0x7f.1")).toMatch(/is not a host name/);
    expect(refusal("127.1")).toMatch(/is not an IPv4 address/);
  });
});
