// `forge demo` in a real terminal (tmux): the screen a person sees after the run. The progress
// table must come after the run's header, once — no copy of it left above by a redraw — and
// in a narrow terminal no row may wrap.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { installRoot } from "../../src/install-root.js";
import { ensureBuilt } from "../harness/build.js";
import { tempDir } from "../helpers/git-repo.js";

const root = installRoot();
const tmux = ["/usr/bin/tmux", "/bin/tmux"].find((p) => existsSync(p));
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
beforeAll(() => ensureBuilt());

function inTmux(socket: string, args: string[]): string {
  return execFileSync(tmux as string, ["-S", socket, ...args], { encoding: "utf8" });
}

describe.skipIf(!tmux)("forge demo in a terminal", () => {
  it("draws the table below the header, once, without wrapped rows (60 columns)", async () => {
    const t = tempDir("forge-tty-");
    cleanups.push(t.cleanup);
    const home = join(t.dir, "home");
    mkdirSync(home);
    const socket = join(t.dir, "tmux.sock");
    const done = join(t.dir, "done");
    const cmd =
      `env -i PATH="${process.env.PATH}" HOME="${home}" TERM=xterm-256color ` +
      `"${process.execPath}" "${join(root, "bin", "forge.js")}" demo --clean; echo $? > "${done}"; sleep 600`;
    inTmux(socket, ["new-session", "-d", "-x", "60", "-y", "50", "sh", "-c", cmd]);
    cleanups.push(() => {
      try {
        inTmux(socket, ["kill-server"]);
      } catch {
        // already gone
      }
    });
    const end = Date.now() + 150_000;
    while (!existsSync(done) && Date.now() < end) await new Promise((r) => setTimeout(r, 250));
    expect(existsSync(done), "forge demo did not finish").toBe(true);
    const screen = inTmux(socket, ["capture-pane", "-p", "-J", "-S", "-", "-E", "-"]);
    const lines = screen.split("\n");
    const header = lines.findIndex((l) => /^run [0-9a-f]{32} \(change chain/.test(l));
    expect(header, screen).toBeGreaterThan(-1);
    // The table's rows have an elapsed time; the final report's have none.
    const tableRow = (role: string) =>
      new RegExp(`^  ${role}\\s+(running|PASS|FAIL|queued)\\s+\\d+\\.\\ds?\\b`);
    for (const role of ["architect", "builder", "reviewer", "security"]) {
      const at = lines.flatMap((l, i) => (tableRow(role).test(l) ? [i] : []));
      expect(at, `${role} rows in\n${screen}`).toHaveLength(1);
      expect(at[0]).toBeGreaterThan(header);
      expect(lines[at[0] as number]).toMatch(/PASS/);
    }
    // Joined (-J) lines are what the program wrote as one: no row was wider than the terminal.
    const rows = lines.filter((l) => /^ {2}\w+\s+\S+\s+\d+\.\ds\b/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(4);
    for (const l of rows) expect(l.length, l).toBeLessThan(60);
  }, 180_000);
});
