// Ctrl-C while execa runs a subprocess: our listener must stay, or execa's signal-exit
// listener, finding itself alone, re-raises SIGINT and kills the process mid-cancel.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const CHILD = join(import.meta.dirname, "child", "interrupt-under-execa.ts");

function runChild(mode: string) {
  return spawnSync(process.execPath, ["--import", "tsx", CHILD, mode], {
    encoding: "utf8",
    timeout: 30_000,
  });
}

describe("whileHandlingSignals", () => {
  it("keeps the process alive through repeated Ctrl-C while execa runs, counting them", () => {
    const r = runChild("helper");
    expect(r.signal).toBeNull();
    expect(r.stdout).toContain("survived [1,2]");
  });

  it("the failure it prevents is real: a process.once listener dies on the first Ctrl-C", () => {
    const r = runChild("once");
    expect(r.signal).toBe("SIGINT");
    expect(r.stdout).not.toContain("survived");
  });
});
