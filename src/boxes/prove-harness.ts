// The harness checks of R7.2, as seen from INSIDE the box: version, credentials (names only,
// never values), the CA store, and whether the harness endpoint is reachable from there.
import { execInBox, tail } from "./box-exec.js";
import type { ProveCheck } from "./prove-types.js";
import type { Box } from "./types.js";

export interface BoxContext {
  box: Box;
  workspace: string;
  home: string;
  /** The environment every command in the box gets (PATH, HOME, …). */
  env: Record<string, string>;
}

export function run(
  ctx: BoxContext,
  script: string,
  env: Record<string, string> = {},
  timeoutMs = 60_000,
) {
  return execInBox(
    ctx.box,
    { command: "/bin/sh", args: ["-c", script], cwd: ctx.workspace, env: { ...ctx.env, ...env } },
    { timeoutMs },
  );
}

export async function harnessVersion(
  ctx: BoxContext,
  claude: string,
): Promise<ProveCheck & { version?: string }> {
  const r = await execInBox(
    ctx.box,
    { command: claude, args: ["--version"], cwd: ctx.workspace, env: ctx.env },
    { timeoutMs: 60_000 },
  );
  const version = /(\d+\.\d+\.\d+)/.exec(r.stdout)?.[1];
  if (r.code !== 0 || !version) {
    return {
      name: "harness version",
      ok: false,
      detail: `\`${claude} --version\` in the box: ${r.spawnError ?? tail(r.stderr || r.stdout, 200) ?? `exit ${r.code}`}`,
      fix:
        "install @anthropic-ai/claude-code in forgechain's install root (npm ci), or name the " +
        "directory of the claude you use in FORGE_BOX_PATHS",
    };
  }
  return {
    name: "harness version",
    ok: true,
    detail: `claude ${version} runs in the box`,
    fix: "",
    version,
  };
}

export const CREDENTIAL_NAMES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
];

export async function harnessCredentials(
  ctx: BoxContext,
  credentials: Record<string, string>,
  loginFileInBox: string | null,
): Promise<ProveCheck> {
  const name = "harness credentials";
  // Names only: the box prints the variable names it sees, never a value.
  const r = await run(ctx, "env | cut -d= -f1", credentials);
  const seen = r.stdout.split("\n").map((l) => l.trim());
  const names = Object.keys(credentials).filter((n) => seen.includes(n));
  const login =
    loginFileInBox !== null && (await run(ctx, `test -r '${loginFileInBox}'`)).code === 0;
  const usable = names.some((n) => CREDENTIAL_NAMES.includes(n)) || login;
  const detail =
    `seen in the box: ${names.length ? names.join(", ") : "no credential variables"}` +
    (login ? "; claude login file present in the box's HOME" : "");
  if (!usable) {
    return {
      name,
      ok: false,
      detail,
      fix: "set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN / CLAUDE_CODE_OAUTH_TOKEN), or `claude login` as the operator",
    };
  }
  return { name, ok: true, detail, fix: "" };
}

const CA_FILES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/cert.pem",
  "/etc/ssl/ca-bundle.pem",
];

export async function caStore(ctx: BoxContext, extraCa?: string): Promise<ProveCheck> {
  const files = extraCa ? [extraCa, ...CA_FILES] : CA_FILES;
  const script = files.map((f) => `[ -s '${f}' ] && { echo '${f}'; exit 0; }`).join("; ");
  const r = await run(ctx, `${script}; exit 1`);
  if (r.code === 0)
    return { name: "CA store", ok: true, detail: `trusted CAs at ${r.stdout.trim()}`, fix: "" };
  return {
    name: "CA store",
    ok: false,
    detail: `none of ${files.join(", ")} is present in the box`,
    fix: "install ca-certificates on the host (the box shows its /usr, /etc/ssl/certs and /etc/pki)",
  };
}

export async function endpointReachable(
  ctx: BoxContext,
  node: string,
  url: string,
  networkMode: string,
): Promise<ProveCheck> {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  const js =
    "const s=require('net').connect({host:process.argv[1],port:+process.argv[2]});" +
    "s.setTimeout(5000,()=>{console.log('timeout');process.exit(1)});" +
    "s.on('connect',()=>{console.log('connected');process.exit(0)});" +
    "s.on('error',e=>{console.log(e.code||e.message);process.exit(1)})";
  const r = await execInBox(
    ctx.box,
    { command: node, args: ["-e", js, u.hostname, port], cwd: ctx.workspace, env: ctx.env },
    { timeoutMs: 30_000 },
  );
  const where = `${u.hostname}:${port}`;
  if (r.code === 0)
    return {
      name: "harness endpoint",
      ok: true,
      detail: `${where} reachable from the box`,
      fix: "",
    };
  return {
    name: "harness endpoint",
    ok: false,
    detail: `${where} not reachable from the box (${tail(r.stdout || r.stderr || r.spawnError || "", 120)}; network: ${networkMode})`,
    fix:
      networkMode === "host"
        ? `let this host reach ${where} (firewall, proxy), or set ANTHROPIC_BASE_URL`
        : "the box has no network here: prove the bwrap box with its egress door (FORGE_EGRESS unset), or let it share the host's network (FORGE_EGRESS=host)",
  };
}
