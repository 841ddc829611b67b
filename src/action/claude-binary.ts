// The claude CLI on an Actions runner (R10.3): the one on PATH when it is the wanted version
// (claude_version, by default the version forgechain pins and proves), else the wanted version
// installed with npm into the runner's tool cache — reused by later jobs on the same runner.
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { execa } from "execa";

export interface ClaudeHost {
  /** Runs a program; its exit code and stdout. */
  run(command: string, args: string[]): Promise<{ code: number; stdout: string }>;
  exists(path: string): boolean;
  log(line: string): void;
}

export const realClaudeHost = (log: (line: string) => void): ClaudeHost => ({
  async run(command, args) {
    const r = await execa(command, args, { reject: false, timeout: 600_000 });
    return { code: r.exitCode ?? -1, stdout: String(r.stdout) };
  },
  exists: existsSync,
  log,
});

export class ClaudeInstallError extends Error {
  override readonly name = "ClaudeInstallError";
}

const PACKAGE = "@anthropic-ai/claude-code";

/** The version `claude --version` prints ("2.1.332 (Claude Code)"), or null. */
export async function claudeVersion(host: ClaudeHost, binary: string): Promise<string | null> {
  const r = await host.run(binary, ["--version"]).catch(() => ({ code: -1, stdout: "" }));
  return r.code === 0 ? (/(\d+\.\d+\.\d+)/.exec(r.stdout)?.[1] ?? null) : null;
}

export async function resolveClaude(o: {
  wanted: string;
  /** PATH of the job. */
  path: string;
  /** RUNNER_TOOL_CACHE, or another directory that outlives the job on a self-hosted runner. */
  toolCache: string;
  host: ClaudeHost;
}): Promise<string> {
  for (const dir of o.path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, "claude");
    if (!o.host.exists(candidate)) continue;
    const version = await claudeVersion(o.host, candidate);
    if (version === o.wanted) return candidate;
    o.host.log(`forgechain: ${candidate} is claude ${version ?? "(unknown)"}, not ${o.wanted}`);
    break; // the first on PATH is the one a user would run; it is not the wanted one
  }
  const prefix = join(o.toolCache, "forgechain-claude", o.wanted);
  const cached = join(prefix, "node_modules", ".bin", "claude");
  if (o.host.exists(cached) && (await claudeVersion(o.host, cached)) === o.wanted) return cached;
  o.host.log(`forgechain: installing ${PACKAGE}@${o.wanted} into ${prefix}`);
  const installed = await o.host.run("npm", [
    "install",
    "--prefix",
    prefix,
    "--no-audit",
    "--no-fund",
    "--no-save",
    `${PACKAGE}@${o.wanted}`,
  ]);
  if (installed.code !== 0 || (await claudeVersion(o.host, cached)) !== o.wanted) {
    throw new ClaudeInstallError(
      `could not install ${PACKAGE}@${o.wanted} (npm exited ${installed.code}): check that the runner reaches the npm registry, or put claude ${o.wanted} on PATH before this step`,
    );
  }
  return cached;
}
