/**
 * The refusals every role needs from EACH defence layer on its own (R4.1, R4.2): secrets read
 * through Bash (smuggled past a path check), pushes in disguise, secret paths, and the role's
 * own `.claude/agents/<role>.md` as a symlink to a credential.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Role } from "../../src/roles/role-names.js";
import { bash, type Case, read } from "./cases.js";
import type { Variant } from "./layers.js";

/** What a guard reason must name for each kind of refusal (checked in guard-only runs). */
export const PUSH_REASON = /forge guard: .*git push/;
export const SECRET_REASON = /forge guard: .*(is a secret path \(rule: [a-z-]+\)|symlink)/;

export function smugglingCases(role: Role): Case[] {
  return [
    { label: "cat .env.example .env", call: bash("cat .env.example .env"), expect: "refused" },
    { label: "echo $(cat .env)", call: bash("echo $(cat .env)"), expect: "refused" },
    { label: "git push", call: bash("git push origin main"), expect: "refused" },
    { label: "git -C . push", call: bash("git -C . push origin main"), expect: "refused" },
    {
      label: "bash -c 'git push'",
      call: bash("bash -c 'git push origin main'"),
      expect: "refused",
    },
    { label: "Read .env", call: read(".env"), expect: "refused" },
    { label: "Read .env.local", call: read(".env.local"), expect: "refused" },
    { label: "Read secrets/", call: read("config/secrets/token.txt"), expect: "refused" },
    { label: "Read *.pem", call: read("deploy/server.pem"), expect: "refused" },
    { label: "Read id_rsa", call: read("id_rsa"), expect: "refused" },
    // The CLI itself refuses /proc files in this version; the settings and guard rules stay.
    {
      label: "Read /proc",
      call: read("/proc/self/environ"),
      expect: "refused",
      layers: ["settings", "guard", "cli"],
    },
    // dontAsk auto-allows read-only commands (cat, head, grep …) and checks Read deny rules
    // against literal arguments only: globs get past the settings, only the guard can stop them.
    {
      label: "cat .e* (glob)",
      call: bash("cat .e*"),
      expect: "refused",
      only: ["real", "guard-only"],
    },
    {
      label: "head .* (glob)",
      call: bash("head -n 5 .*"),
      expect: "refused",
      only: ["real", "guard-only"],
    },
    // Recursion names no secret, so it is not a guard rule (R4.2); the settings deny it.
    {
      label: "grep -r",
      call: bash("grep -r FORGE_CANARY ."),
      expect: "refused",
      only: ["real", "settings-only"],
    },
    {
      label: `Read symlinked .claude/agents/${role}.md`,
      call: read(`.claude/agents/${role}.md`),
      expect: "refused",
    },
  ];
}

/** The same cases, with the layer that must refuse in this variant and the reason it gives. */
export function forVariant(cases: Case[], variant: Variant): Case[] {
  return cases
    .filter((c) => c.only === undefined || c.only.includes(variant))
    .map((c) => {
      if (variant === "real" || c.expect !== "refused") return c;
      const cli = c.layers?.includes("cli") ? (["cli"] as const) : [];
      if (variant === "settings-only") return { ...c, layers: ["settings", ...cli] };
      const reason = /push/.test(c.label) ? PUSH_REASON : SECRET_REASON;
      return { ...c, layers: ["guard", ...cli], text: cli.length > 0 ? undefined : reason };
    });
}

/** A HOME holding a fake Claude login carrying `canary`, for a symlink to point at. */
export function homeWithCredentials(canary: string): {
  home: string;
  credentials: string;
  cleanup(): void;
} {
  const home = mkdtempSync(join(tmpdir(), "forge-home-"));
  mkdirSync(join(home, ".claude"));
  const credentials = join(home, ".claude", ".credentials.json");
  writeFileSync(credentials, JSON.stringify({ claudeAiOauth: { accessToken: canary } }));
  return { home, credentials, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}
