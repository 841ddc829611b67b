// Whether the process that drives a run still lives: real processes, real /proc.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { currentDriver, driverFromData, driverLiveness } from "../../src/store/driver-identity.js";

function sleeper() {
  const child = spawn("/bin/sleep", ["30"], { stdio: "ignore" });
  const exited = new Promise<void>((r) => child.on("exit", () => r()));
  return { child, exited };
}

describe("driverLiveness", () => {
  it("alive while the process runs, gone once it ended", async () => {
    const { child, exited } = sleeper();
    const driver = currentDriver("forge run", child.pid);
    expect(driver.startTicks).toBeGreaterThan(0);
    expect(driverLiveness(driver).state).toBe("alive");
    child.kill("SIGKILL");
    await exited;
    const after = driverLiveness(driver);
    expect(after.state).toBe("gone");
    if (after.state === "gone") expect(after.why).toMatch(/has ended/);
  });

  it("a reused pid (another start time) is not the driver", () => {
    const me = currentDriver("forge run");
    const reused = { ...me, startTicks: (me.startTicks ?? 0) + 12345 };
    const l = driverLiveness(reused);
    expect(l.state).toBe("gone");
    if (l.state === "gone") expect(l.why).toMatch(/reused/);
  });

  it("a reboot since ends every driver; another host cannot be told", () => {
    const me = currentDriver("forge run");
    expect(driverLiveness({ ...me, bootId: "another-boot" }).state).toBe("gone");
    expect(driverLiveness({ ...me, host: "elsewhere" }).state).toBe("unknown");
    expect(driverLiveness(null).state).toBe("unknown");
  });

  it("reads an identity back from journaled data, and nothing else", () => {
    const me = currentDriver("forge serve");
    expect(driverFromData(JSON.parse(JSON.stringify(me)))).toEqual(me);
    expect(driverFromData({ pid: "1", host: "x" })).toBeNull();
    expect(driverFromData(undefined)).toBeNull();
  });
});
