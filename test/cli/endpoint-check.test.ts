// The model endpoint check before a run, against real sockets on loopback.
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { checkModelEndpoint } from "../../src/cli/local/endpoint-check.js";

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(() => r(null)));
});

async function listening<T extends Server>(server: T): Promise<{ server: T; port: number }> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, port: (server.address() as AddressInfo).port };
}

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(() => r(null)));
  return port;
}

describe("checkModelEndpoint", () => {
  it("any HTTP answer, even 404, is an endpoint that is there", async () => {
    const { port } = await listening(
      createHttpServer((_req, res) => {
        res.writeHead(404);
        res.end();
      }),
    );
    const r = await checkModelEndpoint("claude", {
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    });
    expect(r.ok).toBe(true);
  });

  it("a refused connection fails fast, naming ANTHROPIC_BASE_URL and what to do", async () => {
    const port = await closedPort();
    const started = Date.now();
    const r = await checkModelEndpoint("claude", {
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toContain(`ANTHROPIC_BASE_URL=http://127.0.0.1:${port}`);
      expect(r.message).toMatch(/connection refused/);
      expect(r.message).toMatch(/Start the endpoint or point ANTHROPIC_BASE_URL/);
    }
  });

  it("a server that accepts but never answers fails after the timeout", async () => {
    const { port } = await listening(createServer((socket) => void sockets.push(socket)));
    const r = await checkModelEndpoint(
      "claude",
      { ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` },
      500,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/no answer within 0.5 s/);
  });

  it("refuses what is not an http(s) URL; steps aside behind a proxy; other providers are not checked", async () => {
    const bad = await checkModelEndpoint("claude", { ANTHROPIC_BASE_URL: "localhost:8080" });
    expect(bad.ok).toBe(false);
    const proxied = await checkModelEndpoint("claude", {
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`,
      HTTP_PROXY: "http://127.0.0.1:3128",
    });
    expect(proxied).toMatchObject({ ok: true, note: expect.stringMatching(/proxy/) });
    expect((await checkModelEndpoint("codex", {})).ok).toBe(true);
  });
});
