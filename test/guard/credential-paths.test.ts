// The credential files of common tools (AWS, Azure, gcloud, Docker, kube, Codex, gh, npm,
// PyPI, git credential stores, credentials.json): refused to every path tool and inside Bash,
// however the path is spelled, while the harmless neighbours of those files stay usable.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoPathSecretRule } from "../../src/guard/secret-paths.js";
import { bash, decide, removeDir, tempDir } from "./guard-kit.js";

const HOME = { HOME: "/root" };

describe("Bash names a tool's credential file", () => {
  it.each([
    ["aws", "cat ~/.aws/credentials"],
    ["aws", "cat /root/.aws/config"],
    ["aws", 'cat "$HOME/.aws/credentials"'],
    ["aws", "cd ~/.aws && cat credentials"],
    ["azure", "tar czf x.tgz ~/.azure"],
    ["gcloud", "cat ~/.config/gcloud/application_default_credentials.json"],
    ["gcloud", "cd ~/.config/gcloud && cat credentials.db"],
    ["gcloud", "ls ~/.config/g*"],
    ["kube", "cat ~/.kube/config"],
    ["kube", "KUBECONFIG=~/.kube/config make deploy"],
    ["codex", "cat ~/.codex/auth.json"],
    ["docker-config", "cat /root/.docker/config.json"],
    ["docker-config", "cd ~/.docker && cat config.json"],
    ["docker-config", "cp ~/.docker/config.json /tmp/x"],
    ["docker-config", "cat ~/.d*/config.json"],
    ["docker-config", "find / -path '*/.docker/config.json' -exec cat {} +"],
    ["docker-config", `python3 -c "print(open('/root/.docker/config.json').read())"`],
    ["gh-hosts", "cat ~/.config/gh/hosts.yml"],
    ["gh-hosts", "cd ~/.config/gh && cat hosts.yml"],
    ["npmrc", "cat ~/.npmrc"],
    ["npmrc", "cat .npmrc"],
    ["npmrc", "cat ../../.npmrc"],
    ["npmrc", "npm_config_userconfig=.npmrc npm test"],
    ["pypirc", "cat ~/.pypirc"],
    ["git-credentials", "cat ~/.git-credentials"],
    ["git-credentials", "cat ~/.config/git/credentials"],
    ["git-credentials", "cd ~/.config/git && cat credentials"],
    ["netrc", "cat ~/.netrc"],
    ["credentials-file", "cat service/credentials.json"],
    ["credentials-file", "cat ~/.config/sometool/credentials"],
    ["credentials-file", "find ~ -name '*credentials*' -exec cat {} +"],
  ])("%s: %s", async (rule, command) => {
    expect(await bash(command, { env: HOME })).toMatch(`(rule: ${rule})`);
  });

  it("a relative path reaching a home directory", async () => {
    const reason = await bash("cat ../.aws/credentials", { cwd: "/root/repo", env: HOME });
    expect(reason).toMatch("(rule: aws)");
  });

  it.each([
    "cat *.json",
    "find . -name '*.json'",
    "cat config.json",
    "cat docker/config.json",
    "cat src/git/credentials",
    'echo "rotate the aws keys"',
    'git commit -m "document the .docker folder"',
    'cat "$DIR/config.json"',
    "cat deploy/hosts.yml",
    "ls docs",
  ])("no decision: %s", async (command) => {
    expect(await bash(command, { env: HOME })).toBeNull();
  });
});

describe("the path tools name a tool's credential file", () => {
  it.each([
    ["Read", { file_path: "/root/.docker/config.json" }, "docker-config"],
    ["Read", { file_path: "~/.aws/credentials" }, "aws"],
    ["Read", { file_path: "../.npmrc" }, "npmrc"],
    ["Edit", { file_path: "/root/.kube/config" }, "kube"],
    ["Write", { file_path: "/root/.config/gh/hosts.yml" }, "gh-hosts"],
    ["Read", { file_path: "/root/.codex/auth.json" }, "codex"],
    ["Read", { file_path: "/root/.config/gcloud/credentials.db" }, "gcloud"],
    ["Read", { file_path: "/root/.pypirc" }, "pypirc"],
    ["Glob", { pattern: "*", path: "/root/.docker" }, "docker-config"],
    ["Glob", { pattern: "*", path: "/root/.config/gh" }, "gh-hosts"],
    ["Glob", { pattern: ".docker/*" }, "docker-config"],
    ["Glob", { pattern: "**/.aws/**" }, "aws"],
    ["Glob", { pattern: "**/.docker/config.json" }, "docker-config"],
    ["Grep", { pattern: "oauth", glob: "**/.config/gh/hosts.yml" }, "gh-hosts"],
    ["Glob", { pattern: "**/cred*.json" }, "credentials-file"],
    ["Grep", { pattern: "token", path: "/root/.config/gcloud" }, "gcloud"],
    ["Grep", { pattern: "token", path: "/root", glob: ".config/gh/*" }, "gh-hosts"],
    ["Grep", { pattern: "auth", path: "/root", glob: ".docker/config.json" }, "docker-config"],
  ] as const)("%s %j", async (tool, input, rule) => {
    expect(await decide(tool, input, { cwd: "/root/repo", env: HOME })).toMatch(`(rule: ${rule})`);
  });

  it.each([
    ["Read", { file_path: ".docker/nginx.conf" }],
    ["Write", { file_path: ".docker/app/Dockerfile" }],
    ["Read", { file_path: "docker/config.json" }],
    ["Read", { file_path: "config.json" }],
    ["Read", { file_path: "src/gh/hosts.yml" }],
    ["Read", { file_path: "config/credentials.yml.enc" }],
    ["Glob", { pattern: "**/config.json" }],
    ["Grep", { pattern: "aws", glob: "*.ts" }],
  ] as const)("no decision: %s %j", async (tool, input) => {
    expect(await decide(tool, input, { cwd: "/root/repo", env: HOME })).toBeNull();
  });
});

describe("a committed symlink to a credential file", () => {
  let dir = "";
  beforeAll(() => {
    dir = tempDir();
    mkdirSync(join(dir, "home", ".docker"), { recursive: true });
    writeFileSync(join(dir, "home", ".docker", "config.json"), "{}");
    mkdirSync(join(dir, "repo", "docs"), { recursive: true });
    symlinkSync(join(dir, "home", ".docker", "config.json"), join(dir, "repo", "docs", "a.json"));
  });
  afterAll(() => removeDir(dir));

  it("is judged by its target, for Read and in Bash", async () => {
    const cwd = join(dir, "repo");
    expect(await decide("Read", { file_path: "docs/a.json" }, { cwd })).toMatch(
      /through a symlink \(rule: docker-config\)/,
    );
    expect(await bash("cat docs/a.json", { cwd })).toMatch(
      /through a symlink \(rule: docker-config\)/,
    );
  });
});

describe("committed files the runner leaves out of the agents' snapshot", () => {
  it.each([
    [".npmrc", "npmrc"],
    ["packages/web/.npmrc", "npmrc"],
    [".pypirc", "pypirc"],
    [".docker/config.json", "docker-config"],
    ["deploy/.kube/config", "kube"],
    ["config/credentials.json", "credentials-file"],
    [".aws/credentials", "aws"],
  ])("%s (rule: %s)", (path, rule) => {
    expect(repoPathSecretRule(path)).toBe(rule);
  });
  it.each([
    ".docker/Dockerfile",
    ".docker",
    "docker/config.json",
    "config.json",
    "src/credentials.ts",
    "src/git/credentials",
    ".github/workflows/ci.yml",
    "deploy/hosts.yml",
  ])("%s stays", (path) => {
    expect(repoPathSecretRule(path)).toBeNull();
  });
});
