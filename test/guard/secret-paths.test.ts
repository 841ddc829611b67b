// R4.2 rules 2 and 3: secret and credential paths, for the path tools and inside Bash, after
// normalisation. One case per rule and per way of naming a path in Bash.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET_RULES } from "../../src/guard/secret-paths.js";
import { bash, decide, removeDir, tempDir } from "./guard-kit.js";

/** [rule, a path that only that rule matches]. */
const RULE_PATHS: readonly [string, string][] = [
  ["dotenv", ".env"],
  ["dotenv", ".env.local"],
  ["dotenv", ".env.development.local"],
  ["dotenv", ".env.development"],
  ["dotenv", ".env.dev"],
  ["dotenv", ".env.production"],
  ["dotenv", ".env.prod"],
  ["dotenv", ".env.staging"],
  ["dotenv", ".env.test"],
  ["dotenv", ".env.secret"],
  ["dotenv", ".env.secrets"],
  ["dotenv", "app/.env.backup"],
  ["secrets-dir", "config/secrets/db.json"],
  ["pem", "certs/server.pem"],
  ["ssh-key", "keys/id_rsa"],
  ["ssh-key", "keys/id_rsa.pub"],
  ["ssh-key", "keys/id_ed25519"],
  ["ssh-key", "keys/id_ecdsa"],
  ["ssh-key", "keys/id_dsa"],
  ["claude-credentials", "x/.credentials.json"],
  ["proc", "/proc/self/environ"],
  ["sys", "/sys/kernel/notes"],
  ["claude-dir", ".claude/settings.json"],
  ["ssh-dir", "home/.ssh/config"],
  ["git-credentials", "home/.git-credentials"],
  ["netrc", "home/.netrc"],
  ["git-credentials", "home/.config/git/credentials"],
  ["aws", "home/.aws/credentials"],
  ["aws", "home/.aws/config"],
  ["azure", "home/.azure/msal_token_cache.json"],
  ["gcloud", "home/.config/gcloud/application_default_credentials.json"],
  ["gcloud", "home/.config/gcloud/credentials.db"],
  ["kube", "home/.kube/config"],
  ["codex", "home/.codex/auth.json"],
  ["docker-config", "home/.docker/config.json"],
  ["gh-hosts", "home/.config/gh/hosts.yml"],
  ["npmrc", "home/.npmrc"],
  ["npmrc", ".npmrc"],
  ["pypirc", "home/.pypirc"],
  ["credentials-file", "keys/credentials.json"],
  ["credentials-file", "x/application_default_credentials.json"],
  ["credentials-file", "home/.config/sometool/credentials"],
];

const TEMPLATES = [".env.example", ".env.sample", ".env.template", ".env.dist"];

describe("every secret rule is enforced", () => {
  it("covers every rule in SECRET_RULES", () => {
    const tested = new Set(RULE_PATHS.map(([rule]) => rule));
    expect(SECRET_RULES.map((r) => r.name).filter((n) => !tested.has(n))).toEqual([]);
  });

  const tools: readonly [string, string][] = [
    ["Read", "file_path"],
    ["Edit", "file_path"],
    ["Write", "file_path"],
    ["NotebookEdit", "notebook_path"],
  ];
  for (const [tool, key] of tools) {
    it.each(RULE_PATHS)(`${tool}: %s %s`, async (rule, path) => {
      expect(await decide(tool, { [key]: path })).toMatch(`(rule: ${rule})`);
    });
  }
  it.each(RULE_PATHS)("Grep path: %s %s", async (rule, path) => {
    expect(await decide("Grep", { pattern: "x", path })).toMatch(`(rule: ${rule})`);
  });
  it.each(RULE_PATHS)("Glob path: %s %s", async (rule, path) => {
    expect(await decide("Glob", { pattern: "*", path })).toMatch(`(rule: ${rule})`);
  });
  it.each(RULE_PATHS)("Bash cat: %s %s", async (rule, path) => {
    expect(await bash(`cat ${path}`)).toMatch(`(rule: ${rule})`);
  });
});

describe("templates", () => {
  it.each(TEMPLATES)("the path tools may use %s", async (name) => {
    expect(await decide("Read", { file_path: name })).toBeNull();
    expect(await decide("Write", { file_path: `app/${name}` })).toBeNull();
    expect(await decide("Glob", { pattern: `**/${name}` })).toBeNull();
  });
  it.each(TEMPLATES)("Bash may not name %s", async (name) => {
    expect(await bash(`cat ${name}`)).toMatch("(rule: dotenv)");
  });
  it("a template beside a real file does not smuggle a read", async () => {
    expect(await bash("cat .env.example .env")).toMatch("(rule: dotenv)");
  });
});

describe("Bash: every way of naming a path", () => {
  const cases: readonly [string, string][] = [
    ["quotes removed and joined", `cat .e"nv"`],
    ["single quotes", "cat '.env'"],
    ["backslash escape", "cat .\\env"],
    ["ANSI-C escapes", "cat $'\\x2eenv'"],
    ["brace expansion", "cat .e{nv,x}"],
    ["input redirect", "cat < .env"],
    ["output redirect", "echo x > .env"],
    ["redirect followed by words", "echo x >out .env"],
    ["herestring", "cat <<< .env"],
    ["heredoc body", "cat <<EOF\n.env\nEOF"],
    ["heredoc argument", "cat <<EOF .env\nx\nEOF"],
    ["assignment value", "X=.env"],
    ["prefix assignment value", "X=.env true"],
    ["declaration", "export F=.env"],
    ["text inside a string", `python -c "open('.env')"`],
    ["option value", "docker run --env-file=.env img"],
    ["path with a variable", 'cat "$HOME/.env"'],
    ["tilde", "cat ~/.ssh/id_rsa"],
    ["default value of an expansion", `echo \${x:-.env}`],
    ["test expression", "[[ -f .env ]] && echo y"],
    ["for list", "for f in .env; do cat $f; done"],
    ["inside a command substitution", "cat $(echo .env)"],
    ["command name", "./secrets/run.sh"],
    ["inside bash -c", "bash -c 'cat .env'"],
    ["split around a variable", "cat .e$X"],
    ["suffix after a variable", "cat $X.pem"],
    ["prefix before a variable", "cat id_$K"],
    ["glob with a literal dot", "cat .e*"],
    ["single-character glob", "cat .en?"],
    ["bracket glob", "cat .[e]nv"],
    ["glob under a secrets dir", "cat secrets/*"],
    ["glob for key files", "cat *.pem"],
    ["glob for ssh keys", "cat ~/keys/id_*"],
    ["absolute glob reaching /proc", "cat /*/self/environ"],
    ["commit message substitution is still a command", 'git commit -m "$(cat .env)"'],
    ["directory word itself", "tar czf x.tgz secrets"],
    ["quoted glob a program expands", "find . -name '.e*' -exec cat {} +"],
  ];
  it.each(cases)("%s: %s", async (_what, command) => {
    expect(await bash(command)).toMatch(/is a secret path \(rule: [a-z-]+\)/);
  });

  it.each([
    ["shopt -s dotglob", /shopt -s dotglob is not allowed/],
    ["shopt -s globstar", /shopt -s globstar is not allowed/],
    ["bash -O dotglob -c 'ls'", /-O dotglob is not allowed/],
    ["GLOBIGNORE=x ls", /GLOBIGNORE/],
    ["export GLOBIGNORE=.", /GLOBIGNORE/],
  ] as const)("glob semantics may not change: %s", async (command, reason) => {
    expect(await bash(command)).toMatch(reason);
  });

  it.each([
    'git commit -m "update .env.example"',
    'git commit --message="move secrets/ to the vault"',
    'git tag -a v1 -m "rotate id_rsa"',
    "grep -r process.env src",
    "ls *.ts",
    "cp $f $f.bak",
    'python -c "import sys; print(sys.argv)"',
    'echo "no secrets here"',
    "cat src/environment.ts",
    "cat docs/proc.md",
    "find . -name '*.json'",
    "echo done > /dev/stderr",
  ])("no decision: %s", async (command) => {
    expect(await bash(command)).toBeNull();
  });
});

describe("the real directory: globs and symlinks", () => {
  let dir = "";
  beforeAll(() => {
    dir = tempDir();
    mkdirSync(join(dir, "with-key"));
    writeFileSync(join(dir, "with-key", "server.pem"), "");
    mkdirSync(join(dir, "plain"));
    writeFileSync(join(dir, "plain", "a.ts"), "");
    writeFileSync(join(dir, "plain", ".env"), ""); // `*` does not match a dot name
    mkdirSync(join(dir, "repo", "docs"), { recursive: true });
    writeFileSync(join(dir, "repo", ".env"), "");
    symlinkSync("/proc/self/environ", join(dir, "repo", "docs", "environ.md"));
    symlinkSync("../.env", join(dir, "repo", "docs", "config.md"));
    symlinkSync("/proc/self", join(dir, "repo", "self"));
  });
  afterAll(() => removeDir(dir));

  it.each(["docs/environ.md", "docs/config.md", "self/environ"])(
    "a committed symlink is judged by its target: Read %s",
    async (file) => {
      const reason = await decide("Read", { file_path: file }, { cwd: join(dir, "repo") });
      expect(reason).toMatch(/through a symlink \(rule: (proc|dotenv)\)/);
    },
  );
  it.each(["cat docs/environ.md", "cat docs/config.md", "cat docs/*"])(
    "and in Bash: %s",
    async (command) => {
      const reason = await bash(command, { cwd: join(dir, "repo") });
      expect(reason).toMatch(/through a symlink \(rule: (proc|dotenv)\)/);
    },
  );

  it("cat * is refused where it would read a key file", async () => {
    expect(await bash("cat *", { cwd: join(dir, "with-key") })).toMatch("(rule: pem)");
  });
  it("cat * is fine where it matches no secret", async () => {
    expect(await bash("cat *", { cwd: join(dir, "plain") })).toBeNull();
  });
});

describe("paths are normalised before matching", () => {
  it.each([
    ["Read", { file_path: "a/../.env" }, "/w"],
    ["Read", { file_path: "./x/../../proc/self/environ" }, "/w"],
    ["Read", { file_path: "/proc/self/environ" }, "/w"],
    ["Read", { file_path: "../../../.ssh/id_rsa" }, "/home/u/w"],
    ["Write", { file_path: "src/../.claude/settings.json" }, "/w"],
    ["Read", { file_path: "~/.netrc" }, "/w"],
  ] as const)("%s %j (cwd %s)", async (tool, input, cwd) => {
    expect(await decide(tool, input, { cwd })).toMatch(/is a secret path/);
  });
  it.each([
    "cat a/../.env",
    "cat ./x/../../proc/self/environ",
    "cd / && cat proc/self/environ",
    "cat ../../../sys/kernel/notes",
  ])("Bash: %s", async (command) => {
    expect(await bash(command)).toMatch(/is a secret path/);
  });
  it("a path with a newline or control character is refused", async () => {
    expect(await decide("Read", { file_path: "a\n.txt" })).toMatch(/control characters/);
    expect(await decide("Write", { file_path: "a\u0000b" })).toMatch(/control characters/);
    expect(await bash("cat $'a\\x01b'")).toMatch(/control characters/);
  });
  it("a harmless relative path is fine", async () => {
    expect(await decide("Write", { file_path: "src/a.ts" })).toBeNull();
    expect(await decide("Read", { file_path: "./README.md" })).toBeNull();
  });
});

describe("Glob and Grep patterns", () => {
  it.each([
    ["Glob", { pattern: "**/.env*" }],
    ["Glob", { pattern: "**/secrets/**" }],
    ["Glob", { pattern: "**/*.pem" }],
    ["Glob", { pattern: ".claude/**" }],
    ["Glob", { pattern: "**/id_rsa*" }],
    ["Glob", { pattern: "**/@(.env|x)" }],
    ["Glob", { pattern: "{src,.ssh}/*" }],
    ["Grep", { pattern: "KEY", glob: "*.pem" }],
    ["Grep", { pattern: "KEY", glob: ".env*" }],
    ["Grep", { pattern: "KEY", path: "/" }],
  ] as const)("%s %j", async (tool, input) => {
    expect(await decide(tool, input)).not.toBeNull();
  });
  it.each([
    ["Glob", { pattern: "src/**/*.ts" }],
    ["Glob", { pattern: "**/*" }],
    ["Glob", { pattern: "*.{ts,tsx}", path: "src" }],
    ["Grep", { pattern: "secrets", path: "src", glob: "*.ts" }],
    ["Grep", { pattern: "process.env" }],
  ] as const)("no decision: %s %j", async (tool, input) => {
    expect(await decide(tool, input)).toBeNull();
  });
});

describe("tools the guard does not govern", () => {
  it.each(["WebFetch", "Task", "TodoWrite", "WebSearch"])("%s gets no decision", async (tool) => {
    expect(await decide(tool, { url: "file:///proc/self/environ", file_path: ".env" })).toBeNull();
  });
});
