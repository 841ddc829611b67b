import { chmod, mkdtemp, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadGateKey } from "../../src/seal/gate-key.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "forge-gate-key-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("loadGateKey", () => {
  it("uses FORGE_GATE_SECRET when it is at least 32 bytes", async () => {
    const secret = "s".repeat(32);
    const got = await loadGateKey({ env: { FORGE_GATE_SECRET: secret }, dir });
    expect(got.source).toBe("env");
    expect(got.key.equals(Buffer.from(secret))).toBe(true);
  });

  it("refuses a FORGE_GATE_SECRET shorter than 32 bytes and says so", async () => {
    await expect(loadGateKey({ env: { FORGE_GATE_SECRET: "s".repeat(31) }, dir })).rejects.toThrow(
      /31 bytes; it must be at least 32 bytes/,
    );
  });

  it("creates gate.key with mode 0600 and 32 random bytes, then reuses it", async () => {
    const keyDir = join(dir, "state");
    const first = await loadGateKey({ env: {}, dir: keyDir });
    expect(first.source).toBe("file");
    expect(first.path).toBe(join(keyDir, "gate.key"));
    expect(first.key.length).toBe(32);
    expect((await stat(join(keyDir, "gate.key"))).mode & 0o777).toBe(0o600);
    const second = await loadGateKey({ env: {}, dir: keyDir });
    expect(second.key.equals(first.key)).toBe(true);
  });

  it("refuses a gate.key that group or others can read", async () => {
    const path = join(dir, "gate.key");
    await writeFile(path, Buffer.alloc(32, 3), { mode: 0o600 });
    for (const mode of [0o640, 0o604, 0o660, 0o644]) {
      await chmod(path, mode);
      await expect(loadGateKey({ env: {}, dir })).rejects.toThrow(/chmod 600/);
    }
    await chmod(path, 0o600);
    const got = await loadGateKey({ env: {}, dir });
    expect(got.key.equals(Buffer.alloc(32, 3))).toBe(true);
  });

  it("refuses a symlinked gate.key and a short one", async () => {
    const target = join(dir, "elsewhere");
    await writeFile(target, Buffer.alloc(32, 4), { mode: 0o600 });
    await symlink(target, join(dir, "gate.key"));
    await expect(loadGateKey({ env: {}, dir })).rejects.toThrow(/symlink/);
    await rm(join(dir, "gate.key"));
    await writeFile(join(dir, "gate.key"), Buffer.alloc(8), { mode: 0o600 });
    await expect(loadGateKey({ env: {}, dir })).rejects.toThrow(/at least 32 bytes/);
  });

  it("an empty FORGE_GATE_SECRET falls back to the file", async () => {
    const got = await loadGateKey({ env: { FORGE_GATE_SECRET: "" }, dir });
    expect(got.source).toBe("file");
  });
});
