import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseValidate } from "../../src/cli/commands/box.js";
import { UsageError } from "../../src/cli/usage-error.js";
import { ensureBuilt } from "../harness/build.js";
import { makeRepo, tempDir } from "../helpers/git-repo.js";

const ROOT = join(import.meta.dirname, "..", "..");
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("forge box prove flags", () => {
  it("parses name=command controls and advisory marks", () => {
    expect(parseValidate(["test=npm test", "security=scan --all=yes"], ["security"])).toEqual({
      test: { run: "npm test", advisory: false },
      security: { run: "scan --all=yes", advisory: true },
    });
    expect(() => parseValidate(["=x"], [])).toThrow(UsageError);
    expect(() => parseValidate(["test="], [])).toThrow(UsageError);
    expect(() => parseValidate(["Bad Name=x"], [])).toThrow(UsageError);
    expect(() => parseValidate([], ["lint"])).toThrow(/no --validate lint/);
  });
});

describe("forge box prove (CLI)", () => {
  beforeAll(() => ensureBuilt());

  it("records the proof under FORGE_HOME, prints JSON, exits 1 when a check fails (no credentials)", async () => {
    const repo = tempDir("forge-boxcli-repo-");
    const home = tempDir("forge-boxcli-home-");
    cleanups.push(repo.cleanup, home.cleanup);
    makeRepo(repo.dir, { "README.md": "hi\n" });
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          [
            join(ROOT, "bin", "forge.js"),
            "box",
            "prove",
            "--repo",
            repo.dir,
            "--validate",
            "test=test -f README.md",
            "--json",
          ],
          {
            env: { PATH: process.env.PATH, FORGE_HOME: home.dir, HOME: home.dir },
            timeout: 300_000,
          },
          (error, stdout, stderr) =>
            resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      },
    );
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as {
      ok: boolean;
      checks: Array<{ name: string; ok: boolean; fix: string }>;
    };
    expect(report.ok).toBe(false);
    const failed = report.checks.filter((c) => !c.ok && c.fix);
    expect(failed.map((c) => c.name)).toEqual(["harness credentials"]);
    expect(report.checks.find((c) => c.name === "validate: test")?.ok).toBe(true);
    expect(existsSync(join(home.dir, "journal.db"))).toBe(true);
  });

  it("refuses a box kind it cannot prove here with exit 2", async () => {
    const r = await new Promise<number | null>((resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, "bin", "forge.js"), "box", "prove", "--box", "container", "--no-store"],
        (error) => resolve(error ? ((error as { code?: number }).code ?? 1) : 0),
      );
    });
    expect(r).toBe(2);
  });
});
