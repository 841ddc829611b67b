import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { borrowedObjects } from "../../src/runner/borrowed-objects.js";
import { makeRepo, tempDir } from "../helpers/git-repo.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function repo(): string {
  const t = tempDir("forge-borrow-");
  cleanups.push(t.cleanup);
  makeRepo(t.dir, { "a.txt": "a\n" });
  return t.dir;
}

describe("borrowedObjects", () => {
  it("is null for a workspace with objects of its own only", async () => {
    expect(await borrowedObjects(repo())).toBeNull();
  });

  it.each(["alternates", "http-alternates"])("names objects/info/%s", async (name) => {
    const dir = repo();
    writeFileSync(join(dir, ".git", "objects", "info", name), "/elsewhere/objects\n");
    expect(await borrowedObjects(dir)).toBe(`.git/objects/info/${name}`);
  });

  it("sees the file through a linked info directory, and a dangling link at its name", async () => {
    const dir = repo();
    const elsewhere = tempDir("forge-borrow-info-");
    cleanups.push(elsewhere.cleanup);
    writeFileSync(join(elsewhere.dir, "alternates"), "/elsewhere/objects\n");
    const info = join(dir, ".git", "objects", "info");
    rmSync(info, { recursive: true, force: true });
    symlinkSync(elsewhere.dir, info);
    expect(await borrowedObjects(dir)).toBe(".git/objects/info/alternates");
    rmSync(info);
    mkdirSync(info);
    symlinkSync("/nonexistent/target", join(info, "alternates"));
    expect(await borrowedObjects(dir)).toBe(".git/objects/info/alternates");
  });
});
