// The proof's toolchain check: each program the project's commands start is the same one in
// the box as on the host, or the proof fails naming both paths — with a real bwrap box.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createBox } from "../../src/boxes/create-box.js";
import { commandsOf, toolchainCheck } from "../../src/boxes/prove-toolchain.js";
import { tempDir } from "../helpers/git-repo.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function context(path: string) {
  const t = tempDir("forge-toolchain-");
  cleanups.push(t.cleanup);
  const workspace = join(t.dir, "ws");
  const home = join(t.dir, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  const box = createBox("bwrap", { workspace, home, allowNetwork: false });
  return { t, ctx: { box, workspace, home, env: { PATH: path, HOME: home } } };
}

describe("commandsOf", () => {
  it("takes the first program of each simple command (a substitution's too), not the shell's words or assignments", () => {
    expect(
      commandsOf([
        "npm ci",
        "CI=1 npm test -- --runInBand && make lint",
        "cd pkg; python3 -m venv .venv | tee log",
        ".venv/bin/python -m pytest",
        "(go test ./...)",
        "forge:secret-scan",
        "/usr/bin/env true",
        'echo "$(rm -rf /)"',
      ]),
    ).toEqual(["npm", "make", "python3", "tee", "go", "/usr/bin/env", "rm"]);
  });
});

describe("toolchainCheck in a bwrap box", () => {
  it("passes a program the box resolves as the host does", async () => {
    const { ctx } = context("/usr/bin:/bin");
    const check = await toolchainCheck(ctx, "sh", "/usr/bin:/bin");
    expect(check.ok, check.detail).toBe(true);
    expect(check.detail).toMatch(/as on the host/);
  });

  it("fails a program that is another one in the box, naming both paths and the fix", async () => {
    // A toolchain under a directory the box does not show (like pyenv under the host's home).
    const { t, ctx } = context("/usr/bin:/bin");
    const bin = join(t.dir, "toolchain", "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "sh"), '#!/bin/dash\nexec /bin/dash "$@"\n');
    chmodSync(join(bin, "sh"), 0o755);
    const hostPath = `${bin}:/usr/bin:/bin`;
    const check = await toolchainCheck(
      { ...ctx, env: { ...ctx.env, PATH: hostPath } },
      "sh",
      hostPath,
    );
    expect(check.ok).toBe(false);
    expect(check.detail).toContain(`host ${join(bin, "sh")}`);
    expect(check.detail).toMatch(/box \/usr\/bin\/dash/);
    expect(check.fix).toContain("FORGE_BOX_PATHS");
  });

  it("fails a program that is missing in the box", async () => {
    const { t, ctx } = context("/usr/bin:/bin");
    const bin = join(t.dir, "only-on-host");
    mkdirSync(bin);
    writeFileSync(join(bin, "forge-only-tool"), "#!/bin/sh\n");
    chmodSync(join(bin, "forge-only-tool"), 0o755);
    const hostPath = `${bin}:/usr/bin:/bin`;
    const check = await toolchainCheck(
      { ...ctx, env: { ...ctx.env, PATH: hostPath } },
      "forge-only-tool",
      hostPath,
    );
    expect(check.ok).toBe(false);
    expect(check.detail).toBe(
      `forge-only-tool is not found in the box (on the host: ${join(bin, "forge-only-tool")})`,
    );
  });
});
