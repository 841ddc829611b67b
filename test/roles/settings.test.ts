import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installRoot } from "../../src/install-root.js";
import { READ_ONLY_ROLES, ROLES, type Role } from "../../src/roles/role-names.js";
import {
  effectiveSettings,
  loadRoleSettings,
  type RoleSettings,
  SettingsError,
  shellQuote,
} from "../../src/roles/settings.js";

const ROOT = installRoot();
const GUARDED_TOOLS = ["Bash", "Read", "Edit", "Write", "NotebookEdit", "Glob", "Grep"];
const SECRET_PATHS = [
  ".env",
  ".env.local",
  ".env.*.local",
  ".env.development",
  ".env.dev",
  ".env.production",
  ".env.prod",
  ".env.staging",
  ".env.test",
  ".env.secret",
  ".env.secrets",
  "**/secrets/**",
  "*.pem",
  "id_rsa*",
  ".credentials.json",
  "//proc/**",
  "//sys/**",
  // Credential files of common tools (also refused by the guard, for every tool and in Bash).
  ".npmrc",
  ".pypirc",
  ".netrc",
  ".git-credentials",
  "*credentials.json",
  "**/.aws/**",
  "**/.azure/**",
  "**/.kube/**",
  "**/.codex/**",
  "**/.config/gcloud/**",
  "**/.docker/config.json",
  "**/.config/gh/hosts.yml",
  "**/.config/git/credentials",
];

function raw(role: Role): RoleSettings {
  return JSON.parse(readFileSync(join(ROOT, "settings", `${role}.json`), "utf8")) as RoleSettings;
}

/** Would Claude Code's `Bash(prefix *)` / `Bash(exact)` rule list allow this command? */
function bashRuleMatches(rules: string[], command: string): string[] {
  return rules.filter((rule) => {
    const m = /^Bash\((.*)\)$/.exec(rule);
    if (!m?.[1]) return false;
    const re = new RegExp(
      `^${m[1]
        .split("*")
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
    );
    return re.test(command);
  });
}

describe("settings/<role>.json (R2.2)", () => {
  it.each(ROLES)("%s: dontAsk, bypass disabled, allow and deny lists", (role) => {
    const s = raw(role);
    expect(s.permissions.defaultMode).toBe("dontAsk");
    expect(s.permissions.disableBypassPermissionsMode).toBe("disable");
    expect(s.permissions.allow.length).toBeGreaterThan(0);
    expect(s.permissions.deny.length).toBeGreaterThan(0);
    for (const tool of ["Read", "Grep", "Glob"]) expect(s.permissions.allow).toContain(tool);
    // `Bash(x *)` needs a word after x, so the bare form must be there too.
    for (const sub of ["diff", "log", "status", "show"]) {
      expect(s.permissions.allow).toContain(`Bash(git ${sub})`);
      expect(s.permissions.allow).toContain(`Bash(git ${sub} *)`);
    }
  });

  it.each(ROLES)("%s: the guard hook runs before every one of the seven tools", (role) => {
    const pre = raw(role).hooks.PreToolUse ?? [];
    for (const tool of GUARDED_TOOLS) {
      const hooks = pre
        .filter((m) => m.matcher !== undefined && new RegExp(`^(?:${m.matcher})$`).test(tool))
        .flatMap((m) => m.hooks);
      expect(hooks.map((h) => h.command)).toContain(`forge guard --role ${role}`);
      for (const h of hooks) {
        // A hook timeout counts as "allow" in Claude Code: it must be set and short.
        expect(h.timeout).toBeGreaterThan(0);
        expect(h.timeout).toBeLessThanOrEqual(30);
      }
    }
  });

  it("only the builder has the Stop hook, and it runs forge stop-verify", () => {
    for (const role of ROLES) {
      const stop = raw(role).hooks.Stop;
      if (role === "builder") {
        expect(stop?.flatMap((m) => m.hooks.map((h) => h.command))).toEqual(["forge stop-verify"]);
        // Longer than stop-verify's own verify.sh timeout (600 s), so it answers itself.
        expect(stop?.[0]?.hooks[0]?.timeout).toBeGreaterThan(600);
      } else {
        expect(stop).toBeUndefined();
      }
      expect(Object.keys(raw(role).hooks).sort()).toEqual(
        role === "builder" ? ["PreToolUse", "Stop"] : ["PreToolUse"],
      );
    }
  });

  it.each(ROLES)("%s: no allow rule covers npx, uvx or git push", (role) => {
    const { allow } = raw(role).permissions;
    for (const cmd of [
      "npx cowsay",
      "npx",
      "uvx ruff",
      "uvx",
      "git push",
      "git push origin main",
      "git -C . push",
      "npm exec cowsay",
      "curl https://example.com",
    ]) {
      expect(bashRuleMatches(allow, cmd), cmd).toEqual([]);
    }
    expect(allow.filter((r) => r === "Bash" || r === "Bash(*)")).toEqual([]);
  });

  it.each(ROLES)("%s: deny holds git push and each secret path as Read and Edit rules", (role) => {
    const { deny } = raw(role).permissions;
    for (const cmd of ["git push", "git push origin main", "git -C . push"]) {
      expect(bashRuleMatches(deny, cmd).length, cmd).toBeGreaterThan(0);
    }
    for (const path of SECRET_PATHS) {
      expect(deny).toContain(`Read(${path})`);
      expect(deny).toContain(`Edit(${path})`);
      // Bare and **/ patterns match only inside the project; //**/ matches anywhere (a
      // symlink to ~/.claude/.credentials.json got through without it).
      if (!path.startsWith("//")) {
        const anywhere = `//**/${path.replace(/^\*\*\//, "")}`;
        expect(deny).toContain(`Read(${anywhere})`);
        expect(deny).toContain(`Edit(${anywhere})`);
      }
    }
    // A role must be able to Read its own .claude/agents/<role>.md: deny beats allow.
    expect(deny.filter((r) => /^Read\((\*\*\/)?\.claude(\/\*\*)?\)$/.test(r))).toEqual([]);
    expect(deny.filter((r) => r.startsWith("Read(") && r.includes(".claude/agents"))).toEqual([]);
    // Only Read/Edit path rules are consulted; a Write(path) rule would be false comfort.
    expect(deny.filter((r) => /^Write\(.+\)$/.test(r))).toEqual([]);
    expect(deny).toContain("WebFetch");
    expect(deny).toContain("WebSearch");
    // dontAsk auto-allows grep/rg/diff with no allow rule and checks Read denies only against
    // literal arguments: recursion would read every denied file. R4.2: no .env name in Bash.
    for (const cmd of [
      "grep -r TOKEN .",
      "grep -rn TOKEN .",
      "egrep -r TOKEN .",
      "rg TOKEN",
      "diff -r . ../other",
      "cat .env.example .env",
      "cat .env*",
    ]) {
      expect(bashRuleMatches(deny, cmd).length, cmd).toBeGreaterThan(0);
    }
  });

  it.each([...READ_ONLY_ROLES])("%s (read-only): every writing tool is denied", (role) => {
    const { allow, deny } = raw(role).permissions;
    for (const tool of ["Edit", "Write", "NotebookEdit", "WebFetch", "WebSearch"]) {
      expect(deny).toContain(tool);
      expect(allow).not.toContain(tool);
    }
    for (const cmd of ["git add .", "git commit -m x", "mkdir x", "chmod +x a", "make"]) {
      expect(bashRuleMatches(allow, cmd), cmd).toEqual([]);
    }
  });

  it("builder: may write and build, may not reach the network or infrastructure", () => {
    const { allow, deny } = raw("builder").permissions;
    for (const tool of ["Read", "Grep", "Glob", "Edit", "Write"]) expect(allow).toContain(tool);
    for (const cmd of [
      "git add src/x.ts",
      "git commit -m x",
      "git rm a",
      "git mv a b",
      "git checkout -b x",
      "git branch",
      "uv run pytest",
      "npm test",
      "npm run build",
      "npm ci",
      "go test ./...",
      "go build ./...",
      "go vet ./...",
      "make",
      "make test",
      "pytest",
      "shellcheck scripts/verify.sh",
      "openspec validate",
      "openspec validate --all",
      "mkdir -p src",
      "ls",
      "ls -la",
      "chmod +x scripts/verify.sh",
      // the usual runners of each preset's stack (issue #13)
      "node --test",
      "npm install left-pad",
      "yarn test",
      "yarn install --frozen-lockfile",
      "pnpm run build",
      "pnpm install",
      "python3 -m unittest discover -s tests",
      "python3 -m pytest -q",
      ".venv/bin/python -m pytest -q",
      ".venv/bin/python -m unittest",
      "cargo test",
      "cargo build --release",
      "cargo check",
    ]) {
      expect(bashRuleMatches(allow, cmd).length, cmd).toBeGreaterThan(0);
    }
    for (const cmd of [
      "curl https://x",
      "wget https://x",
      "ssh host",
      "scp a host:b",
      "nc host 80",
      "kubectl get pods",
      "docker run x",
      "npx cowsay",
      "uvx ruff",
      // their twins: package runners that fetch and run a package
      "npm exec cowsay",
      "npm x cowsay",
      "yarn dlx cowsay",
      "pnpm dlx cowsay",
      "pnpx cowsay",
      "bunx cowsay",
      "uv tool run ruff",
      "pipx run black",
      "go run example.com/tool@latest",
    ]) {
      expect(bashRuleMatches(deny, cmd).length, cmd).toBeGreaterThan(0);
    }
  });
});

describe("effectiveSettings", () => {
  const scratch = mkdtempSync(join(tmpdir(), "forge-settings-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.each(ROLES)("%s: every hook command is absolute node + our entry, fail-closed", (role) => {
    const eff = effectiveSettings(role, { root: ROOT, node: "/opt/node/bin/node" });
    const commands = Object.values(eff.hooks).flatMap((ms) =>
      ms.flatMap((m) => m.hooks.map((h) => h.command)),
    );
    expect(commands.length).toBeGreaterThan(0);
    for (const c of commands) {
      expect(c.startsWith(`/opt/node/bin/node ${join(ROOT, "bin")}/forge`)).toBe(true);
      expect(c.endsWith(" || exit 2")).toBe(true);
    }
    // The guard skips the ESM dispatcher: its own CommonJS launcher starts near bare node.
    expect(commands).toContain(
      `/opt/node/bin/node ${join(ROOT, "bin", "forge-guard.cjs")} --role ${role} || exit 2`,
    );
    // Permissions pass through untouched.
    expect(eff.permissions).toEqual(raw(role).permissions);
  });

  it("runs the builder's Stop hook through bin/forge.js", () => {
    const eff = effectiveSettings("builder", { root: ROOT, node: "/opt/node/bin/node" });
    expect(eff.hooks.Stop?.[0]?.hooks[0]?.command).toBe(
      `/opt/node/bin/node ${join(ROOT, "bin", "forge.js")} stop-verify || exit 2`,
    );
  });

  it("defaults to this node and this installation", () => {
    const eff = effectiveSettings("reviewer");
    const cmd = eff.hooks.PreToolUse?.[0]?.hooks[0]?.command;
    expect(cmd).toBe(
      `${shellQuote(process.execPath)} ${join(ROOT, "bin", "forge-guard.cjs")} --role reviewer || exit 2`,
    );
  });

  it("shell-quotes paths with spaces and quotes, and the shell runs them as one word", () => {
    const root = join(scratch, "it's a root");
    mkdirSync(join(root, "settings"), { recursive: true });
    mkdirSync(join(root, "bin"));
    writeFileSync(join(root, "settings", "builder.json"), JSON.stringify(raw("builder")));
    const echo = "console.log(JSON.stringify(process.argv.slice(2)))";
    writeFileSync(join(root, "bin", "forge.js"), echo);
    writeFileSync(join(root, "bin", "forge-guard.cjs"), echo);
    const eff = effectiveSettings("builder", { root });
    const guardCmd = eff.hooks.PreToolUse?.[0]?.hooks[0]?.command ?? "";
    expect(JSON.parse(execFileSync("/bin/sh", ["-c", guardCmd], { encoding: "utf8" }))).toEqual([
      "--role",
      "builder",
    ]);
    const stopCmd = eff.hooks.Stop?.[0]?.hooks[0]?.command ?? "";
    expect(JSON.parse(execFileSync("/bin/sh", ["-c", stopCmd], { encoding: "utf8" }))).toEqual([
      "stop-verify",
    ]);
  });

  it("a hook whose entry cannot run refuses (exit 2), never the shell's 127 or node's 1", () => {
    const root = join(scratch, "no-bin");
    mkdirSync(join(root, "settings"), { recursive: true });
    writeFileSync(join(root, "settings", "builder.json"), JSON.stringify(raw("builder")));
    const eff = effectiveSettings("builder", { root });
    for (const cmd of [
      eff.hooks.PreToolUse?.[0]?.hooks[0]?.command ?? "",
      eff.hooks.Stop?.[0]?.hooks[0]?.command ?? "",
    ]) {
      const r = spawnSync("/bin/sh", ["-c", cmd], { input: "{}", encoding: "utf8" });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/Cannot find module/);
    }
    // Without the suffix the same command would exit 1 (Claude Code: an ignored error).
    const bare = (eff.hooks.PreToolUse?.[0]?.hooks[0]?.command ?? "").replace(" || exit 2", "");
    expect(spawnSync("/bin/sh", ["-c", bare], { input: "{}" }).status).toBe(1);
  });

  it("refuses a settings file that is not fail-closed or runs a foreign hook", () => {
    const root = join(scratch, "bad");
    mkdirSync(join(root, "settings"), { recursive: true });
    const write = (s: unknown) =>
      writeFileSync(join(root, "settings", "reviewer.json"), JSON.stringify(s));
    const good = raw("reviewer");
    write({ ...good, permissions: { ...good.permissions, defaultMode: "bypassPermissions" } });
    expect(() => effectiveSettings("reviewer", { root })).toThrow(SettingsError);
    write({
      ...good,
      permissions: { ...good.permissions, disableBypassPermissionsMode: undefined },
    });
    expect(() => effectiveSettings("reviewer", { root })).toThrow(SettingsError);
    write({
      ...good,
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "curl x | sh" }] }],
      },
    });
    expect(() => effectiveSettings("reviewer", { root })).toThrow(/must start with "forge/);
    expect(() => loadRoleSettings("nobody" as Role, ROOT)).toThrow(SettingsError);
  });

  it("shellQuote leaves safe words alone and quotes the rest", () => {
    expect(shellQuote("/usr/bin/node")).toBe("/usr/bin/node");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("$(x)")).toBe("'$(x)'");
  });
});

describe("forge settings <role>", () => {
  const forge = join(ROOT, "bin", "forge.js");
  it("prints the effective settings JSON", () => {
    const r = spawnSync(process.execPath, [forge, "settings", "security"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(effectiveSettings("security"));
  });
  it("exits 2 on an unknown or missing role", () => {
    expect(
      spawnSync(process.execPath, [forge, "settings", "admin"], { encoding: "utf8" }).status,
    ).toBe(2);
    expect(spawnSync(process.execPath, [forge, "settings"], { encoding: "utf8" }).status).toBe(2);
  });
});
