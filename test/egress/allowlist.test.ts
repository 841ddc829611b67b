import { describe, expect, it } from "vitest";
import {
  classifyAddress,
  EgressEntryError,
  type EgressRule,
  embeddedIpv4,
  matchEgress,
  parseEgressEntry,
} from "../../src/egress/allowlist.js";

describe("parseEgressEntry", () => {
  it.each([
    ["registry.npmjs.org", { host: "registry.npmjs.org", port: 443 }],
    ["*.pythonhosted.org:443", { host: "*.pythonhosted.org", port: 443 }],
    ["127.0.0.1:8080", { host: "127.0.0.1", port: 8080 }],
    ["[::1]:9000", { host: "::1", port: 9000 }],
    ["[0:0:0:0:0:0:0:1]", { host: "::1", port: 443 }],
    ["[2001:DB8::A]:8443", { host: "2001:db8::a", port: 8443 }],
    ["Registry.NPMJS.org.", { host: "registry.npmjs.org", port: 443 }],
    ["  proxy.golang.org:443  ", { host: "proxy.golang.org", port: 443 }],
    ["xn--bcher-kva.example:80", { host: "xn--bcher-kva.example", port: 80 }],
    ["static.crates.io:65535", { host: "static.crates.io", port: 65535 }],
  ])("%s", (text, rule) => {
    expect(parseEgressEntry(text)).toEqual(rule);
  });

  it.each([
    ["", /empty/],
    ["   ", /empty/],
    ["*", /`\*` alone/],
    ["*:443", /`\*` alone/],
    ["https://registry.npmjs.org", /is a URL/],
    ["registry.npmjs.org/simple", /has a path/],
    ["user:pw@registry.npmjs.org", /user or a password/],
    ["registry.npmjs.org:0", /port number/],
    ["registry.npmjs.org:65536", /port number/],
    ["registry.npmjs.org:https", /port number/],
    ["registry.npmjs.org:", /port number/],
    ["::1", /in brackets/],
    ["[registry.npmjs.org]:443", /IPv6/],
    ["a*.x.org", /not a leading/],
    ["*.*.x.org", /not a leading/],
    ["x.*.org", /not a leading/],
    ["*.com", /top-level domain/],
    ["127.1", /not an IPv4 address/],
    ["0x7f.0.0.1", /not a host name/],
    ["*.0.0.1", /not a host name/],
    ["bücher.example", /xn-- form/],
    ["-bad-.example", /not a host name/],
    ["a..b", /not a host name/],
    ["a b.org", /contains a space/],
  ])("refuses %j", (text, message) => {
    expect(() => parseEgressEntry(text)).toThrow(EgressEntryError);
    expect(() => parseEgressEntry(text)).toThrow(message);
  });
});

describe("matchEgress", () => {
  const rules: EgressRule[] = [
    "registry.npmjs.org",
    "*.x.org",
    "*.pythonhosted.org:8443",
    "127.0.0.1:8080",
    "[::1]:9000",
    "exact.x.org:443",
  ].map(parseEgressEntry);

  it.each([
    ["registry.npmjs.org", 443, "registry.npmjs.org"],
    ["REGISTRY.npmjs.ORG", 443, "registry.npmjs.org"],
    ["registry.npmjs.org.", 443, "registry.npmjs.org"],
    ["a.x.org", 443, "*.x.org"],
    ["a.b.x.org", 443, "*.x.org"],
    ["files.pythonhosted.org", 8443, "*.pythonhosted.org"],
    ["127.0.0.1", 8080, "127.0.0.1"],
    ["::1", 9000, "::1"],
    ["[::1]", 9000, "::1"],
    ["0:0:0:0:0:0:0:1", 9000, "::1"],
  ])("%s:%i is allowed by %s", (host, port, by) => {
    expect(matchEgress(rules, host, port)?.host).toBe(by);
  });

  it.each([
    ["x.org", 443, "a wildcard never matches its apex"],
    ["evilx.org", 443, "a suffix match must start at a dot"],
    ["x.org.evil.com", 443, "the suffix is at the end"],
    ["registry.npmjs.org", 80, "the port is part of the rule (443 by default)"],
    ["registry.npmjs.org", 8443, "another port"],
    ["files.pythonhosted.org", 443, "the wildcard was given port 8443 only"],
    ["127.0.0.1", 8081, "a loopback rule names one port"],
    ["127.0.0.2", 8080, "another loopback address"],
    ["localhost", 8080, "a name is not the address it may resolve to"],
    ["::ffff:127.0.0.1", 8080, "a mapped address is not the IPv4 rule's text"],
    ["::1", 443, "the IPv6 rule's port"],
    ["", 443, "empty"],
    ["npmjs.org", 443, "the parent of an exact name"],
    ["sub.registry.npmjs.org", 443, "a child of an exact name"],
  ])("%s:%i is not allowed (%s)", (host, port) => {
    expect(matchEgress(rules, host, port)).toBeNull();
  });

  it("an exact rule wins over a wildcard that also matches (only exact may reach private addresses)", () => {
    expect(matchEgress(rules, "exact.x.org", 443)).toEqual({ host: "exact.x.org", port: 443 });
    expect(matchEgress([...rules].reverse(), "exact.x.org", 443)?.host).toBe("exact.x.org");
  });

  it("a wildcard never matches an IP literal", () => {
    expect(matchEgress([{ host: "*.0.1", port: 443 }], "10.0.0.1", 443)).toBeNull();
  });

  it("no rules, nothing allowed", () => {
    expect(matchEgress([], "registry.npmjs.org", 443)).toBeNull();
  });
});

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.1.2", "loopback"],
    ["::1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["100.127.255.254", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["169.254.169.254", "link-local"],
    ["169.254.0.1", "link-local"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:a00:1", "private"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:0.0.0.0", "unspecified"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["::ffff:8.8.8.8", "public"],
    // documentation, benchmark and other reserved ranges: the registry resolves into one here
    ["203.0.113.80", "public"],
    ["192.0.2.1", "public"],
    ["198.51.100.7", "public"],
    ["198.18.0.1", "public"],
    ["2001:db8::1", "public"],
    ["8.8.8.8", "public"],
    ["172.32.0.1", "public"],
    ["100.128.0.1", "public"],
    ["11.0.0.1", "public"],
    ["2606:4700::6810:84e5", "public"],
  ])("%s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it("throws on anything that is not an address", () => {
    expect(() => classifyAddress("localhost")).toThrow(/not an IP address/);
    expect(() => classifyAddress("127.1")).toThrow(/not an IP address/);
  });

  it("finds the IPv4 address inside mapped, compatible and NAT64 IPv6 addresses only", () => {
    expect(embeddedIpv4("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(embeddedIpv4("::ffff:7f00:1")).toBe("127.0.0.1");
    expect(embeddedIpv4("64:ff9b::808:808")).toBe("8.8.8.8");
    expect(embeddedIpv4("::a00:1")).toBe("10.0.0.1");
    expect(embeddedIpv4("::1")).toBeNull();
    expect(embeddedIpv4("2001:db8::ffff:a00:1")).toBeNull();
    expect(embeddedIpv4("10.0.0.1")).toBeNull();
  });
});
