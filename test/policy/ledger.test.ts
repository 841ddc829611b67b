import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/policy/canonical-json.js";
import { appendLedger, GENESIS, ledgerHead, verifyLedger } from "../../src/policy/ledger.js";
import { roleGateViolationEntry } from "../../src/policy/role-gate.js";
import { tempDir } from "./helpers.js";

let cleanup = () => {};
afterEach(() => cleanup());

function ledgerWith(n: number): string {
  const t = tempDir("forge-ledger-");
  cleanup = t.cleanup;
  const file = join(t.dir, "ledger.jsonl");
  for (let i = 0; i < n; i++) {
    appendLedger(
      file,
      roleGateViolationEntry({
        role: "reviewer",
        tool: "Bash",
        input: { command: `git push ${i}` },
        pattern: "Bash(git push:*)",
        at: new Date(0),
      }),
    );
  }
  return file;
}

const lines = (file: string) => readFileSync(file, "utf8").trimEnd().split("\n");

describe("ledger.jsonl", () => {
  it("chains every line to the sha256 of the previous line; the first to 64 zeros", () => {
    const file = ledgerWith(3);
    const [a, b, c] = lines(file) as [string, string, string];
    expect(JSON.parse(a).prev).toBe(GENESIS);
    expect(JSON.parse(b).prev).toBe(sha256Hex(a));
    expect(JSON.parse(c).prev).toBe(sha256Hex(b));
    expect(verifyLedger(file)).toEqual({ ok: true, lines: 3, head: sha256Hex(c) });
    expect(ledgerHead(file)).toBe(sha256Hex(c));
  });

  it("detects a tampered line", () => {
    const file = ledgerWith(4);
    const all = lines(file);
    all[1] = (all[1] as string).replace('"reviewer"', '"builder"');
    writeFileSync(file, `${all.join("\n")}\n`);
    expect(verifyLedger(file)).toMatchObject({ ok: false, badLine: 3 });
  });

  it("detects a removed line and reordered lines", () => {
    const file = ledgerWith(4);
    const all = lines(file);
    writeFileSync(file, `${[all[0], all[2], all[3]].join("\n")}\n`);
    expect(verifyLedger(file)).toMatchObject({ ok: false, badLine: 2 });
    writeFileSync(file, `${[all[1], all[0], all[2], all[3]].join("\n")}\n`);
    expect(verifyLedger(file)).toMatchObject({ ok: false, badLine: 1 });
  });

  it("a tampered or dropped last line is caught against the recorded head", () => {
    const file = ledgerWith(3);
    const head = ledgerHead(file);
    const all = lines(file);
    all[2] = (all[2] as string).replace("Bash(git push:*)", "Bash(ls:*)");
    writeFileSync(file, `${all.join("\n")}\n`);
    expect(verifyLedger(file).ok).toBe(true); // the chain alone cannot see it…
    expect(verifyLedger(file, head)).toMatchObject({ ok: false, badLine: 3 }); // …the head can
    writeFileSync(file, `${all.slice(0, 2).join("\n")}\n`);
    expect(verifyLedger(file, head).ok).toBe(false);
  });

  it("detects a non-JSON line and a torn last line", () => {
    const file = ledgerWith(2);
    writeFileSync(file, `${readFileSync(file, "utf8")}not json\n`);
    expect(verifyLedger(file)).toMatchObject({ ok: false, badLine: 3, reason: "not a JSON line" });
    writeFileSync(file, readFileSync(file, "utf8").replace(/not json\n$/, '{"a":1'));
    expect(verifyLedger(file)).toMatchObject({ ok: false, reason: "the last line is incomplete" });
  });

  it("an entry cannot choose its own prev", () => {
    const file = ledgerWith(0);
    expect(() => appendLedger(file, { prev: GENESIS })).toThrow(/prev/);
  });

  it("an empty or missing ledger verifies", () => {
    expect(verifyLedger(join(ledgerWith(0), "..", "none.jsonl"))).toEqual({
      ok: true,
      lines: 0,
      head: GENESIS,
    });
  });

  it("parallel writers in separate processes keep the chain intact", async () => {
    const file = ledgerWith(0);
    const go = `${file}.go`;
    // Each child waits for the same start signal, then appends as fast as it can, so the
    // appends really interleave (without the lock this breaks the chain).
    const script = `
      const { existsSync, writeFileSync } = await import("node:fs");
      const { appendLedger } = await import(${JSON.stringify(join(import.meta.dirname, "../../src/policy/ledger.ts"))});
      const [file, go] = process.argv.slice(1);
      const nap = new Int32Array(new SharedArrayBuffer(4));
      writeFileSync(go + "." + process.pid, "");
      while (!existsSync(go)) Atomics.wait(nap, 0, 0, 1);
      for (let i = 0; i < 300; i++) appendLedger(file, { writer: process.pid, i });
    `;
    const ready: Array<Promise<number>> = [];
    for (let n = 0; n < 3; n++) {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", script, file, go],
        {
          stdio: ["ignore", "ignore", "inherit"],
        },
      );
      ready.push(
        new Promise<number>((resolve, reject) => {
          child.on("error", reject);
          child.on("exit", (code) => resolve(code ?? 1));
        }),
      );
    }
    // Start them together: wait until all three are at the barrier.
    const dir = join(file, "..");
    while (readdirSync(dir).filter((f) => f.startsWith("ledger.jsonl.go.")).length < 3) {
      await new Promise((r) => setTimeout(r, 20));
    }
    writeFileSync(go, "");
    expect(await Promise.all(ready)).toEqual([0, 0, 0]);
    expect(verifyLedger(file)).toMatchObject({ ok: true, lines: 900 });
  });
});
