// A GitHub Actions OIDC issuer on loopback for tests: a real discovery document and key set
// served over HTTP, its RS256 key made by jose at test time. It also plays the runner's token
// service (ACTIONS_ID_TOKEN_REQUEST_URL): a job registered with `job()` gets a signed token for
// the audience it asks for, with that job's claims, as GitHub's runner hands them out.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";

export const KID = "test-key-1";

export interface TestIssuer {
  issuer: string;
  privateKey: CryptoKey;
  /** Answer 503 to everything while true. */
  down: boolean;
  /** Serve this discovery document instead of the right one. */
  discovery: unknown;
  server: Server;
  /**
   * Registers a job's claims; returns its request URL and token (the runner's
   * ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN).
   */
  job(claims: JWTPayload): { url: string; token: string };
  /** Tokens handed out, newest last. */
  issued: string[];
}

/** A token signed by the issuer's key, as GitHub signs them. */
export function signToken(iss: Pick<TestIssuer, "privateKey">, payload: JWTPayload) {
  return new SignJWT(payload)
    .setProtectedHeader({ alg: "RS256", kid: KID, typ: "JWT" })
    .sign(iss.privateKey);
}

export async function startIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, alg: "RS256", use: "sig" };
  const state = { down: false, issuer: "", discovery: undefined as unknown };
  const jobs = new Map<string, JWTPayload>();
  const issued: string[] = [];
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
    const url = new URL(req.url ?? "/", state.issuer);
    if (url.pathname === "/id-token") {
      const claims = jobs.get(String(req.headers.authorization ?? "").replace(/^Bearer /, ""));
      const aud = url.searchParams.get("audience");
      if (!claims || !aud) return send(401, { message: "no such job" });
      const now = Math.floor(Date.now() / 1000);
      void signToken(
        { privateKey },
        {
          ...claims,
          aud,
          iss: state.issuer,
          jti: randomBytes(12).toString("hex"),
          iat: now,
          nbf: now - 5,
          exp: now + 300,
        },
      ).then((value) => {
        issued.push(value);
        send(200, { value });
      });
      return;
    }
    send(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    privateKey,
    server,
    issued,
    job(claims: JWTPayload) {
      const token = `forge-test-id-request-${randomBytes(8).toString("hex")}`;
      jobs.set(token, claims);
      return { url: `${state.issuer}/id-token?api-version=2.0`, token };
    },
  });
}
