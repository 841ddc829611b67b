// Plain-HTTP proxying (absolute form) through the Unix socket: checked like CONNECT, the Host
// header made the target's, and a redirect's follow-up judged again from scratch.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Answer,
  type Canary,
  type ProxyUnderTest,
  recordingLookup,
  requestVia,
  startCanary,
  startProxy,
} from "./egress-kit.js";

let canary: Canary;
let px: ProxyUnderTest | undefined;

beforeEach(async () => {
  canary = await startCanary();
});
afterEach(async () => {
  await px?.close();
  px = undefined;
  await canary.close();
});

/** What a client that follows redirects does behind a proxy: each hop is a new proxy request. */
async function followVia(socketPath: string, url: string, hops = 5): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next: string | undefined = url;
  while (next && answers.length < hops) {
    const a = await requestVia(socketPath, next);
    answers.push(a);
    next = a.status >= 300 && a.status < 400 ? String(a.headers.location) : undefined;
  }
  return answers;
}

describe("egress proxy: absolute-form HTTP", () => {
  it("forwards GET http://host:port/path to an allowed canary, with the target as Host", async () => {
    px = await startProxy([`127.0.0.1:${canary.port}`]);
    const a = await requestVia(px.socketPath, `http://127.0.0.1:${canary.port}/pkg?v=1`, {
      headers: { host: "evil.example.net", "proxy-authorization": "Basic eDp5" },
    });
    expect(a.status).toBe(200);
    expect(a.body).toBe("canary /pkg?v=1");
    expect(canary.requests[0]?.url).toBe("/pkg?v=1");
    expect(canary.requests[0]?.headers.host).toBe(`127.0.0.1:${canary.port}`);
    expect(canary.requests[0]?.headers["proxy-authorization"]).toBeUndefined();
  });

  it("streams a request body through", async () => {
    px = await startProxy([`127.0.0.1:${canary.port}`]);
    const a = await requestVia(px.socketPath, `http://127.0.0.1:${canary.port}/upload`, {
      method: "POST",
      body: "x".repeat(100_000),
    });
    expect(a.status).toBe(200);
    expect(canary.requests[0]?.method).toBe("POST");
  });

  it("refuses a target that is not allowed (port 80 is not 443) with 403 and a denial", async () => {
    const dns = recordingLookup({});
    px = await startProxy(["registry.npmjs.org"], { lookup: dns.lookup });
    const a = await requestVia(px.socketPath, "http://registry.npmjs.org/left-pad");
    expect(a.status).toBe(403);
    expect(a.body).toMatch(/registry\.npmjs\.org:80 refused/);
    expect(dns.asked).toEqual([]);
    expect(px.proxy.denials()).toMatchObject([{ host: "registry.npmjs.org", port: 80 }]);
  });

  it("refuses https:// in absolute form (that goes through CONNECT) and a URL with credentials", async () => {
    px = await startProxy([`127.0.0.1:${canary.port}`]);
    const tls = await requestVia(px.socketPath, `https://127.0.0.1:${canary.port}/`);
    expect(tls.status).toBe(400);
    const cred = await requestVia(px.socketPath, `http://u:p@127.0.0.1:${canary.port}/`);
    expect(cred.status).toBe(400);
    expect(canary.connections).toBe(0);
  });

  it("a redirect from an allowed host to a private address: the follow-up is checked again and refused", async () => {
    const dns = recordingLookup({
      "pkgs.x.org": ["127.0.0.1"],
      "internal.x.org": ["10.0.0.5"],
    });
    // The canary plays an allowed host that answers with a redirect inward. `pkgs.x.org` is
    // allowed by its exact name (it may be loopback here), `internal.x.org` only by `*.x.org`.
    px = await startProxy([`pkgs.x.org:${canary.port}`, `*.x.org:${canary.port}`], {
      lookup: dns.lookup,
    });
    const inward = `http://internal.x.org:${canary.port}/latest/meta-data/`;
    const answers = await followVia(
      px.socketPath,
      `http://pkgs.x.org:${canary.port}/redirect?to=${encodeURIComponent(inward)}`,
    );
    expect(answers.map((a) => a.status)).toEqual([302, 403]);
    expect(answers[1]?.body).toMatch(/internal\.x\.org resolves to 10\.0\.0\.5, a private address/);
    expect(canary.requests.map((r) => r.headers.host)).toEqual([`pkgs.x.org:${canary.port}`]);
  });

  it("a redirect to a loopback address that no rule names is refused before any lookup", async () => {
    const dns = recordingLookup({ "pkgs.x.org": ["127.0.0.1"] });
    px = await startProxy([`pkgs.x.org:${canary.port}`], { lookup: dns.lookup });
    const to = `http://127.0.0.1:${canary.port}/admin`;
    const answers = await followVia(
      px.socketPath,
      `http://pkgs.x.org:${canary.port}/redirect?to=${encodeURIComponent(to)}`,
    );
    expect(answers.map((a) => a.status)).toEqual([302, 403]);
    expect(canary.requests).toHaveLength(1);
    expect(px.proxy.denials()[0]).toMatchObject({ host: "127.0.0.1", reason: /allowlist/ });
  });

  it("a name that does not resolve is a 502, not a refusal", async () => {
    const dns = recordingLookup({});
    px = await startProxy(["gone.example.org:80"], { lookup: dns.lookup });
    const a = await requestVia(px.socketPath, "http://gone.example.org/");
    expect(a.status).toBe(502);
    expect(a.body).toMatch(/does not resolve \(ENOTFOUND\)/);
    expect(px.proxy.denials()).toEqual([]);
  });

  it("an origin-form request without a gateway is refused and journaled", async () => {
    px = await startProxy([`127.0.0.1:${canary.port}`]);
    const a = await requestVia(px.socketPath, "/v1/messages", { method: "POST", body: "{}" });
    expect(a.status).toBe(403);
    expect(a.body).toMatch(/no model gateway/);
    expect(px.proxy.denials()).toHaveLength(1);
  });
});
