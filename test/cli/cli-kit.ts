// The real CLI bundle in child processes, as a user runs it: a sandboxed HOME and FORGE_HOME,
// the demo repository, and a scripted model on loopback.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { createDemoRepo } from "../../src/demo/demo-repo.js";
import { demoScript } from "../../src/demo/demo-script.js";
import { installRoot } from "../../src/install-root.js";
import type { Script } from "../../src/scripted-model/server.js";
import { tempDir } from "../helpers/git-repo.js";

export const root = installRoot();
const execFileP = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function forge(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 240_000,
): Promise<CliResult> {
  try {
    const r = await execFileP(process.execPath, [join(root, "bin", "forge.js"), ...args], {
      env,
      timeout: timeoutMs,
      maxBuffer: 32 * 1024 * 1024,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface Sandbox {
  dir: string;
  env: Record<string, string>;
  cleanup(): void;
}

export function sandbox(prefix = "forge-cli-"): Sandbox {
  const t = tempDir(prefix);
  const home = join(t.dir, "home");
  mkdirSync(home);
  return {
    dir: t.dir,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      FORGE_HOME: join(t.dir, "forge-home"),
    },
    cleanup: t.cleanup,
  };
}

export async function demoRepo(s: Sandbox, name = "repo"): Promise<string> {
  const repo = join(s.dir, name);
  await createDemoRepo(root, repo);
  return repo;
}

/** The demo script with the first turn of one role held back for `delayMs`. */
export function slowRole(role: string, delayMs: number, script: Script = demoScript()): Script {
  return {
    ...script,
    routes: (script.routes ?? []).map((r) =>
      r.marker === `forgechain step: ${role}`
        ? { ...r, turns: r.turns.map((t, i) => (i === 0 ? { ...t, delayMs } : t)) }
        : r,
    ),
  };
}

/** `forge …` left running, its output collected as it comes. */
export interface LiveForge {
  child: ChildProcess;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
  /** Resolves once stdout matches, or rejects after `timeoutMs`. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<void>;
}

export function spawnForge(args: string[], env: Record<string, string>): LiveForge {
  const child = spawn(process.execPath, [join(root, "bin", "forge.js"), ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += String(d);
  });
  child.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return {
    child,
    out: () => stdout,
    err: () => stderr,
    exited,
    async waitFor(re, timeoutMs = 120_000) {
      const end = Date.now() + timeoutMs;
      while (!re.test(stdout)) {
        if (Date.now() > end || child.exitCode !== null) {
          throw new Error(`waited for ${re} in:\n${stdout}\n${stderr}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

export function runIdOf(out: string): string {
  const id = /run ([0-9a-f]{32}) \((change|review) chain/.exec(out)?.[1];
  if (!id) throw new Error(`no run id in:\n${out}`);
  return id;
}
