// Which claude the Action runs: PATH's when it is the wanted version, else the tool cache's,
// installed once with npm. Real scripts on a real PATH; npm itself is the injected part.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ClaudeHost,
  ClaudeInstallError,
  realClaudeHost,
  resolveClaude,
} from "../../src/action/claude-binary.js";
import { tempDir } from "../helpers/git-repo.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function fakeClaude(dir: string, version: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "claude");
  writeFileSync(file, `#!/bin/sh\necho "${version} (Claude Code)"\n`);
  chmodSync(file, 0o755);
  return file;
}

function host(onNpm: (args: string[]) => number) {
  const real = realClaudeHost(() => {});
  const lines: string[] = [];
  const npm: string[][] = [];
  const h: ClaudeHost = {
    async run(command, args) {
      if (command === "npm") {
        npm.push(args);
        return { code: onNpm(args), stdout: "" };
      }
      return real.run(command, args);
    },
    exists: real.exists,
    log: (l) => lines.push(l),
  };
  return { h, lines, npm };
}

describe("resolveClaude", () => {
  it("PATH's claude when it is the wanted version; nothing installed", async () => {
    const t = tempDir("forge-claude-");
    cleanups.push(t.cleanup);
    const onPath = fakeClaude(join(t.dir, "bin"), "2.1.332");
    const x = host(() => 1);
    expect(
      await resolveClaude({
        wanted: "2.1.332",
        path: join(t.dir, "bin"),
        toolCache: join(t.dir, "cache"),
        host: x.h,
      }),
    ).toBe(onPath);
    expect(x.npm).toEqual([]);
  });

  it("another version on PATH: the wanted one installed into the tool cache, said so, then reused", async () => {
    const t = tempDir("forge-claude-");
    cleanups.push(t.cleanup);
    fakeClaude(join(t.dir, "bin"), "2.0.1");
    const cache = join(t.dir, "cache");
    const installedBin = join(cache, "forgechain-claude", "2.1.332", "node_modules", ".bin");
    const x = host(() => {
      fakeClaude(installedBin, "2.1.332");
      return 0;
    });
    const o = { wanted: "2.1.332", path: join(t.dir, "bin"), toolCache: cache, host: x.h };
    expect(await resolveClaude(o)).toBe(join(installedBin, "claude"));
    expect(x.npm[0]).toContain("@anthropic-ai/claude-code@2.1.332");
    expect(x.lines.join("\n")).toMatch(/is claude 2\.0\.1, not 2\.1\.332/);
    expect(await resolveClaude(o)).toBe(join(installedBin, "claude"));
    expect(x.npm).toHaveLength(1);
  });

  it("an install that fails stops with what to do", async () => {
    const t = tempDir("forge-claude-");
    cleanups.push(t.cleanup);
    const x = host(() => 1);
    const o = { wanted: "2.1.332", path: "", toolCache: join(t.dir, "cache"), host: x.h };
    await expect(resolveClaude(o)).rejects.toThrow(ClaudeInstallError);
    await expect(resolveClaude(o)).rejects.toThrow(/put claude 2\.1\.332 on PATH/);
  });
});
