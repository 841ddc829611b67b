import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ledgerHead, verifyLedger } from "../../src/policy/ledger.js";
import { loadProfiles } from "../../src/policy/profiles.js";
import {
  enforceRoleGate,
  matchDisallowed,
  ROLE_GATE_VIOLATION,
  roleGateViolationEntry,
} from "../../src/policy/role-gate.js";
import { readShell } from "../../src/policy/shell-segments.js";
import { tempDir } from "./helpers.js";

const seedProfile = {
  disallowed_tools: [
    "Edit(.evolve/state.json)",
    "Write(acs/regression-suite/**)",
    "Bash(git push:*)",
    "Bash(perl:*)",
  ],
};
const bash = (command: string) => matchDisallowed(seedProfile, "Bash", { command });

describe("matchDisallowed: the seed's pattern forms", () => {
  it("path patterns cover every file-writing tool", () => {
    expect(matchDisallowed(seedProfile, "Edit", { file_path: ".evolve/state.json" })).toBe(
      "Edit(.evolve/state.json)",
    );
    expect(matchDisallowed(seedProfile, "Write", { file_path: ".evolve/state.json" })).toBe(
      "Edit(.evolve/state.json)",
    );
    expect(
      matchDisallowed(seedProfile, "MultiEdit", { file_path: "acs/regression-suite/a/b.json" }),
    ).toBe("Write(acs/regression-suite/**)");
    expect(
      matchDisallowed(seedProfile, "NotebookEdit", {
        notebook_path: "acs/regression-suite/n.ipynb",
      }),
    ).toBe("Write(acs/regression-suite/**)");
    expect(matchDisallowed(seedProfile, "Edit", { file_path: "src/state.json" })).toBeNull();
    expect(matchDisallowed(seedProfile, "Read", { file_path: ".evolve/state.json" })).toBeNull();
  });

  it("normalises paths: ./, .., absolute paths inside the workspace", () => {
    const o = { cwd: "/work/repo" };
    for (const file_path of [
      "./.evolve/state.json",
      "src/../.evolve/state.json",
      "/work/repo/.evolve/state.json",
    ]) {
      expect(matchDisallowed(seedProfile, "Edit", { file_path }, o), file_path).toBe(
        "Edit(.evolve/state.json)",
      );
    }
  });

  it("a file tool call without a path is denied (cannot tell)", () => {
    expect(matchDisallowed(seedProfile, "Write", {})).toBe("Edit(.evolve/state.json)");
  });

  it("Bash(prefix:*) matches the command and its arguments, at a word boundary", () => {
    expect(bash("git push")).toBe("Bash(git push:*)");
    expect(bash("git push origin main --force")).toBe("Bash(git push:*)");
    expect(bash("perl -e 'print 1'")).toBe("Bash(perl:*)");
    expect(bash("git pushx")).toBeNull();
    expect(bash("perlbrew list")).toBeNull();
    expect(bash("git status")).toBeNull();
    expect(bash("echo git push")).toBeNull();
  });

  it("sees through the usual ways of hiding a command", () => {
    const hidden = [
      "cd sub && git push",
      "true; git push",
      "false || git push",
      "ls | git push",
      "FOO=1 git push",
      "env -i GIT_DIR=.git git push",
      "/usr/bin/git push",
      "git -C . push",
      "git -c user.name=x --no-pager push",
      '"git" push',
      "g\\it push",
      "echo $(git push)",
      'echo "$(git push)"',
      "echo `git push`",
      "sh -c 'git push'",
      'bash -lc "git push origin"',
      "eval git push",
      "timeout 10 git push",
      "nohup git push &",
      "(git push)",
      "{ git push; }",
      "if true; then git push; fi",
      "git status\ngit push",
      "cat <(git push)",
      "xargs git push < /dev/null",
      "sudo -u x git push",
      "git status 2>&1 >/dev/null; git push",
    ];
    for (const command of hidden) expect(bash(command), command).toBe("Bash(git push:*)");
  });

  it("fails closed on a command it cannot read", () => {
    expect(bash("echo 'unterminated")).toBe("Bash(git push:*)");
    expect(matchDisallowed(seedProfile, "Bash", {})).toBe("Bash(git push:*)");
  });

  it("bare tool names, exact commands, mcp servers and domains", () => {
    const p = {
      disallowed_tools: [
        "WebSearch",
        "Bash(make deploy)",
        "mcp__github",
        "WebFetch(domain:evil.test)",
      ],
    };
    expect(matchDisallowed(p, "WebSearch", { query: "x" })).toBe("WebSearch");
    expect(matchDisallowed(p, "Bash", { command: "make  deploy" })).toBe("Bash(make deploy)");
    expect(matchDisallowed(p, "Bash", { command: "make deploy-docs" })).toBeNull();
    expect(matchDisallowed(p, "mcp__github__create_pr", {})).toBe("mcp__github");
    expect(matchDisallowed(p, "mcp__githubx__a", {})).toBeNull();
    expect(matchDisallowed(p, "WebFetch", { url: "https://api.evil.test/x" })).toBe(
      "WebFetch(domain:evil.test)",
    );
    expect(matchDisallowed(p, "WebFetch", { url: "https://good.test/" })).toBeNull();
  });

  it("a Read(path) deny also stops a Grep over the folder that holds it", () => {
    const p = { disallowed_tools: ["Read(secrets/**)"] };
    expect(matchDisallowed(p, "Read", { file_path: "secrets/a.key" })).toBe("Read(secrets/**)");
    expect(matchDisallowed(p, "Grep", { pattern: "x", path: "secrets" })).toBe("Read(secrets/**)");
    expect(matchDisallowed(p, "Grep", { pattern: "x" })).toBe("Read(secrets/**)");
    expect(matchDisallowed(p, "Grep", { pattern: "x", path: "src" })).toBeNull();
  });

  it("the committed read-only profiles deny every writing git subcommand and file tool", () => {
    const profiles = loadProfiles(`${import.meta.dirname}/../../profiles`);
    for (const role of ["architect", "reviewer", "security"] as const) {
      const p = profiles[role];
      for (const command of [
        "git commit -m x",
        "git -C . reset --hard",
        "rm -rf src",
        "sed -i s/a/b/ f",
        "git push",
      ]) {
        expect(matchDisallowed(p, "Bash", { command }), `${role}: ${command}`).not.toBeNull();
      }
      expect(matchDisallowed(p, "Bash", { command: "git diff HEAD~1" })).toBeNull();
      expect(matchDisallowed(p, "Write", { file_path: "x.ts" })).not.toBeNull();
    }
    expect(matchDisallowed(profiles.builder, "Bash", { command: "npm test" })).toBeNull();
    expect(matchDisallowed(profiles.builder, "Bash", { command: "npx some-pkg" })).toBe(
      "Bash(npx:*)",
    );
    expect(matchDisallowed(profiles.builder, "Edit", { file_path: ".git/config" })).toBe(
      "Edit(.git/**)",
    );
  });
});

describe("role gate ledger entry", () => {
  it("records the pattern and a digest, never the full command", () => {
    const token = `ghp_${"A".repeat(36)}`;
    const entry = roleGateViolationEntry({
      role: "reviewer",
      runId: "r1",
      tool: "Bash",
      input: { command: `git push https://x:${token}@github.com/a/b` },
      pattern: "Bash(git push:*)",
      at: new Date("2026-01-01T00:00:00Z"),
    });
    expect(entry).toMatchObject({
      code: ROLE_GATE_VIOLATION,
      role: "reviewer",
      pattern: "Bash(git push:*)",
      target: "git push",
    });
    expect(JSON.stringify(entry)).not.toContain(token);
    expect(entry.input_sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("enforceRoleGate", () => {
  it("a denied call is refused, ledgered and carries ROLE_GATE_VIOLATION; an allowed one leaves no trace", () => {
    const { dir, cleanup } = tempDir("forge-gate-");
    try {
      const ledgerFile = join(dir, "ledger.jsonl");
      const profile = { role: "reviewer" as const, disallowed_tools: ["Bash(git push:*)"] };
      expect(
        enforceRoleGate({ profile, tool: "Bash", input: { command: "git log" }, ledgerFile }),
      ).toEqual({ denied: false });
      expect(verifyLedger(ledgerFile)).toMatchObject({ ok: true, lines: 0 });
      const decision = enforceRoleGate({
        profile,
        tool: "Bash",
        input: { command: "cd x && git push" },
        ledgerFile,
        runId: "r1",
      });
      expect(decision).toMatchObject({
        denied: true,
        code: ROLE_GATE_VIOLATION,
        pattern: "Bash(git push:*)",
      });
      expect(verifyLedger(ledgerFile)).toMatchObject({ ok: true, lines: 1 });
      expect(decision.denied && decision.ledgerHead).toBe(ledgerHead(ledgerFile));
    } finally {
      cleanup();
    }
  });
});

describe("readShell", () => {
  it("splits into simple commands and strips wrappers", () => {
    const { commands, ok } = readShell("A=1 nice -n 5 make test && git -C x log --oneline | head");
    expect(ok).toBe(true);
    expect(commands[0]).toEqual(["make", "test"]);
    expect(commands).toContainEqual(["git", "log", "--oneline"]);
    expect(commands).toContainEqual(["head"]);
    expect(commands).not.toContainEqual(expect.arrayContaining(["A=1"]));
  });
});
