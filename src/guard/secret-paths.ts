// Secret and credential path rules (R4.2), pure. The rule names appear in deny reasons.
//
// Two modes: "path-tool" (Read/Edit/Write/NotebookEdit/Glob/Grep get an exact file path, so
// the `.env` templates are allowed) and "bash" (a word may be any part of a command, and a
// template name beside a real one smuggles a read — `cat .env.example .env` — so every name
// starting with `.env` is denied). Matching is case-insensitive: `.ENV` on a case-insensitive
// file system is `.env`, and a false positive on Linux costs nothing.

import { credentialRule, literalSegments } from "./credential-paths.js";

export type SecretRuleName =
  | "dotenv"
  | "secrets-dir"
  | "pem"
  | "ssh-key"
  | "claude-credentials"
  | "proc"
  | "sys"
  | "claude-dir"
  | "ssh-dir"
  | "git-credentials"
  | "netrc"
  | "aws"
  | "azure"
  | "gcloud"
  | "kube"
  | "codex"
  | "docker-config"
  | "gh-hosts"
  | "npmrc"
  | "pypirc"
  | "credentials-file";

export interface SecretRule {
  readonly name: SecretRuleName;
  readonly matches: string;
  /** false: listed in R4.2; true: added by the guard (our choice). */
  readonly added: boolean;
}

export const SECRET_RULES: readonly SecretRule[] = [
  {
    name: "dotenv",
    matches: ".env and every .env* name (templates allowed for path tools only)",
    added: false,
  },
  { name: "secrets-dir", matches: "**/secrets/**", added: false },
  { name: "pem", matches: "*.pem", added: false },
  { name: "ssh-key", matches: "id_rsa*, id_ed25519*, id_ecdsa*, id_dsa*", added: false },
  { name: "claude-credentials", matches: ".credentials.json", added: false },
  { name: "proc", matches: "/proc", added: false },
  { name: "sys", matches: "/sys", added: false },
  { name: "claude-dir", matches: ".claude/", added: false },
  { name: "ssh-dir", matches: ".ssh/", added: true },
  {
    name: "git-credentials",
    matches: ".git-credentials, git/credentials (git's credential stores)",
    added: true,
  },
  { name: "netrc", matches: ".netrc", added: true },
  // Credential files of common tools (issue #13): each holds a token or key that reaches
  // something outside the box. Whole directories where everything is a credential or a token
  // cache; the exact file where the directory also holds harmless, often committed files.
  { name: "aws", matches: ".aws/ (credentials, config, sso and cli token caches)", added: true },
  { name: "azure", matches: ".azure/ (token caches)", added: true },
  { name: "gcloud", matches: ".config/gcloud/ (credentials, access tokens)", added: true },
  { name: "kube", matches: ".kube/ (kubeconfig with cluster tokens)", added: true },
  { name: "codex", matches: ".codex/ (auth.json, session transcripts)", added: true },
  {
    name: "docker-config",
    matches: ".docker/config.json (registry auth); in Bash the .docker directory",
    added: true,
  },
  {
    name: "gh-hosts",
    matches: "gh/hosts.yml (GitHub CLI tokens); in Bash the .config/gh directory",
    added: true,
  },
  { name: "npmrc", matches: ".npmrc (registry tokens), at every level", added: true },
  { name: "pypirc", matches: ".pypirc (package index passwords), at every level", added: true },
  {
    name: "credentials-file",
    matches: "*credentials.json, and credentials inside a hidden directory",
    added: true,
  },
];

export type PathMode = "path-tool" | "bash";

/** The templates R4.2 allows for the path tools (and only for them). */
export const ENV_TEMPLATES: ReadonlySet<string> = new Set([
  ".env.example",
  ".env.sample",
  ".env.template",
  ".env.dist",
]);

const SSH_KEY = /^id_(rsa|ed25519|ecdsa|dsa)/;

export interface SegmentContext {
  readonly mode: PathMode;
  /** The segment is the last one of the path. */
  readonly last: boolean;
  /**
   * A last segment `secrets` names the directory itself. For a path tool that reaches its
   * contents (Grep, Glob); in Bash only a whole word (or `secrets/`) counts, so prose such as
   * `echo "no secrets here"` is not refused.
   */
  readonly namesDirItself: boolean;
}

/** The rule one literal path segment matches (root-only rules excluded), or null. */
export function segmentRule(segment: string, ctx: SegmentContext): SecretRuleName | null {
  const s = segment.toLowerCase();
  if (s.startsWith(".env")) {
    if (ctx.mode === "path-tool" && ctx.last && ENV_TEMPLATES.has(s)) return null;
    return "dotenv";
  }
  if (s === "secrets" && (!ctx.last || ctx.namesDirItself)) return "secrets-dir";
  if (s.endsWith(".pem")) return "pem";
  if (SSH_KEY.test(s)) return "ssh-key";
  if (s === ".credentials.json") return "claude-credentials";
  if (s === ".claude") return "claude-dir";
  if (s === ".ssh") return "ssh-dir";
  if (s === ".git-credentials") return "git-credentials";
  if (s === ".netrc") return "netrc";
  return toolSegmentRule(s);
}

/** Segment rules of the common tools' credential files (the lower-cased segment). */
function toolSegmentRule(s: string): SecretRuleName | null {
  switch (s) {
    case ".aws":
      return "aws";
    case ".azure":
      return "azure";
    case ".kube":
      return "kube";
    case ".codex":
      return "codex";
    case ".npmrc":
      return "npmrc";
    case ".pypirc":
      return "pypirc";
  }
  // credentials.json, application_default_credentials.json, service-account-credentials.json
  return s.endsWith("credentials.json") ? "credentials-file" : null;
}

/** `/proc` and `/sys` only count as the first segment of an absolute path. */
export function rootRule(firstSegment: string): SecretRuleName | null {
  const s = firstSegment.toLowerCase();
  if (s === "proc") return "proc";
  if (s === "sys") return "sys";
  return null;
}

export interface SecretHit {
  readonly rule: SecretRuleName;
  /** The offending segment or token, for the deny reason. */
  readonly what: string;
  /** The name itself is harmless; a symlink in it leads to the secret. */
  readonly viaSymlink?: boolean;
}

/** Checks every segment of an absolute, normalised path. */
export function classifySegments(
  segments: readonly string[],
  mode: PathMode,
  namesDirItself: boolean,
): SecretHit | null {
  const first = segments[0];
  const root = first === undefined ? null : rootRule(first);
  if (root) return { rule: root, what: `/${first}` };
  const segs = literalSegments(segments);
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] ?? "";
    const ctx: SegmentContext = { mode, last: i === segments.length - 1, namesDirItself };
    const rule = segmentRule(seg, ctx) ?? credentialRule(segs, i, ctx);
    if (rule) return { rule, what: seg };
  }
  return null;
}

/**
 * Names a glob or partly computed segment is tested against ("could it match a secret?").
 * Open-ended rules are represented by their stems; `*.pem` is handled by suffix coverage
 * (see glob-segment.ts) so that `*` or `k*` alone does not count as naming a key file.
 */
export const SECRET_PROBES: readonly { readonly name: string; readonly rule: SecretRuleName }[] = [
  ...[
    ".env",
    ".env.local",
    ".env.development.local",
    ".env.production.local",
    ".env.development",
    ".env.dev",
    ".env.production",
    ".env.prod",
    ".env.staging",
    ".env.test",
    ".env.secret",
    ".env.secrets",
    ...ENV_TEMPLATES,
  ].map((name) => ({ name, rule: "dotenv" as const })),
  { name: "secrets", rule: "secrets-dir" },
  ...["id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"].flatMap((k) => [
    { name: k, rule: "ssh-key" as const },
    { name: `${k}.pub`, rule: "ssh-key" as const },
  ]),
  { name: ".credentials.json", rule: "claude-credentials" },
  { name: ".claude", rule: "claude-dir" },
  { name: ".ssh", rule: "ssh-dir" },
  { name: ".git-credentials", rule: "git-credentials" },
  { name: ".netrc", rule: "netrc" },
  { name: ".aws", rule: "aws" },
  { name: ".azure", rule: "azure" },
  { name: ".kube", rule: "kube" },
  { name: ".codex", rule: "codex" },
  { name: ".npmrc", rule: "npmrc" },
  { name: ".pypirc", rule: "pypirc" },
];

export const ROOT_PROBES: readonly { readonly name: string; readonly rule: SecretRuleName }[] = [
  { name: "proc", rule: "proc" },
  { name: "sys", rule: "sys" },
];

/**
 * The rule a path inside a repository matches, as the guard would refuse it to a path tool
 * (the `.env` templates stay readable), or null. Repository paths are relative: `/proc` and
 * `/sys` do not apply, and a file named `secrets` is not the secrets directory. The runner
 * leaves every such file out of the snapshot agents get, so no tool reaches its content.
 * A committed `.npmrc` or `.pypirc` is among them on purpose: they often hold a registry
 * token (`//registry.npmjs.org/:_authToken=…`). The setup phase and the controls still run
 * on the real checkout with the file; only the agents do not see it.
 */
export function repoPathSecretRule(path: string): SecretRuleName | null {
  const segments = path.split("/").filter((s) => s !== "" && s !== ".");
  const segs = literalSegments(segments);
  for (let i = 0; i < segments.length; i++) {
    const last = i === segments.length - 1;
    const ctx: SegmentContext = { mode: "path-tool", last, namesDirItself: false };
    const rule = segmentRule(segments[i] ?? "", ctx) ?? credentialRule(segs, i, ctx);
    if (rule) return rule;
  }
  return null;
}
