// A GitHub Actions OIDC issuer on loopback for tests: a real discovery document and key set
// served over HTTP, its RS256 key made by jose at test time.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type CryptoKey, exportJWK, generateKeyPair } from "jose";

export const KID = "test-key-1";

export interface TestIssuer {
  issuer: string;
  privateKey: CryptoKey;
  /** Answer 503 to everything while true. */
  down: boolean;
  /** Serve this discovery document instead of the right one. */
  discovery: unknown;
  server: Server;
}

export async function startIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, alg: "RS256", use: "sig" };
  const state = { down: false, issuer: "", discovery: undefined as unknown };
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    if (state.down) return send(503, { message: "unavailable" });
    if (req.url === "/.well-known/openid-configuration") {
      const right = { issuer: state.issuer, jwks_uri: `${state.issuer}/.well-known/jwks` };
      return send(200, state.discovery ?? right);
    }
    if (req.url === "/.well-known/jwks") return send(200, { keys: [jwk] });
    send(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, { privateKey, server });
}
