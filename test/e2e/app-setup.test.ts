// `forge serve` without App credentials starts Probot's own setup flow (register the App from
// app.yml) instead of the App, and says so.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../app/serve-process.js";
import { ensureBuilt } from "../harness/build.js";
import { REPO_ROOT } from "../harness/claude-run.js";

let child: ChildProcess | null = null;
const home = mkdtempSync(join(tmpdir(), "forge-setup-"));
afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(home, { recursive: true, force: true });
});

describe("forge serve without credentials", () => {
  it("serves Probot's setup page with the manifest from app.yml", async () => {
    ensureBuilt();
    const port = await freePort();
    const out: string[] = [];
    child = spawn(process.execPath, [join(REPO_ROOT, "bin", "forge.js"), "serve"], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        FORGE_HOME: join(home, "state"),
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (c: Buffer) => out.push(c.toString()));
    child.stderr?.on("data", (c: Buffer) => out.push(c.toString()));
    const until = Date.now() + 30_000;
    while (!out.join("").includes("setup flow") && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    expect(out.join("")).toContain("Probot's setup flow");
    const page = await fetch(`http://127.0.0.1:${port}/probot`);
    const html = await page.text();
    expect(page.status).toBe(200);
    // The manifest GitHub will be sent: our events and least permissions from app.yml.
    const manifest = /name="manifest"[^>]*value="([^"]+)"|value='([^']+)'/.exec(html);
    const text = (manifest?.[1] ?? manifest?.[2] ?? html)
      .replace(/&quot;/g, '"')
      .replace(/&#34;/g, '"');
    expect(text).toContain('"checks":"write"');
    expect(text).toContain('"metadata":"read"');
    expect(text).not.toContain('"members"');
    expect(text).toContain('"issue_comment"');
  });
});
