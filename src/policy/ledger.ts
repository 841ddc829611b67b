import {
  appendFileSync,
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { sha256Hex } from "./canonical-json.js";

/**
 * The hash-chained ledger (R7.3, seed 003 `ledger.jsonl`): one JSON object per line, each with
 * `prev` = sha256 of the previous line's exact text (the first line: 64 zeros). Editing,
 * dropping or reordering any line breaks the chain at the line after it. The last line can
 * only be pinned from outside: keep `ledgerHead()` somewhere the ledger's writer cannot
 * rewrite (the journal) and pass it to verifyLedger.
 */
export const GENESIS = "0".repeat(64);

export interface LedgerEntry {
  [key: string]: unknown;
}

export type LedgerVerdict =
  | { ok: true; lines: number; head: string }
  | { ok: false; badLine: number; reason: string };

/**
 * Appends one entry and returns the sha256 of the line written (the new head). Synchronous,
 * because it runs inside a PreToolUse hook; serialised with a lock file, because parallel
 * tool calls may append at once and an interleaved append would break the chain.
 */
export function appendLedger(file: string, entry: LedgerEntry): string {
  if (Object.hasOwn(entry, "prev")) throw new Error("a ledger entry must not set prev itself");
  return withLock(`${file}.lock`, () => {
    const prev = existsSync(file) ? lastLineHash(readFileSync(file, "utf8")) : GENESIS;
    const line = JSON.stringify({ ...entry, prev });
    if (line.includes("\n")) throw new Error("ledger line must be one line");
    appendFileSync(file, `${line}\n`, { mode: 0o600 });
    return sha256Hex(line);
  });
}

/** sha256 of the last line (GENESIS for an empty or missing ledger). */
export function ledgerHead(file: string): string {
  return existsSync(file) ? lastLineHash(readFileSync(file, "utf8")) : GENESIS;
}

/**
 * Checks every link. `badLine` (1-based) is the first line whose `prev` does not match the
 * line before it — the line before it, or this one, was changed — or that is not JSON.
 * With `expectedHead`, a changed or dropped last line is caught too.
 */
export function verifyLedger(file: string, expectedHead?: string): LedgerVerdict {
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (text !== "" && !text.endsWith("\n")) {
    return { ok: false, badLine: text.split("\n").length, reason: "the last line is incomplete" };
  }
  const lines = text === "" ? [] : text.slice(0, -1).split("\n");
  let prev = GENESIS;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return { ok: false, badLine: i + 1, reason: "not a JSON line" };
    }
    const link = (parsed as { prev?: unknown } | null)?.prev;
    if (link !== prev) {
      return {
        ok: false,
        badLine: i + 1,
        reason:
          i === 0
            ? "the first line does not start the chain"
            : `prev does not match line ${i}: line ${i} or this line was changed, removed or reordered`,
      };
    }
    prev = sha256Hex(line);
  }
  if (expectedHead !== undefined && prev !== expectedHead) {
    return {
      ok: false,
      badLine: Math.max(lines.length, 1),
      reason:
        "the head does not match the recorded head: the last line was changed or lines were removed",
    };
  }
  return { ok: true, lines: lines.length, head: prev };
}

function lastLineHash(text: string): string {
  const trimmed = text.endsWith("\n") ? text.slice(0, -1) : text;
  if (trimmed === "") return GENESIS;
  const last = trimmed.slice(trimmed.lastIndexOf("\n") + 1);
  return sha256Hex(last);
}

const SLEEP = new Int32Array(new SharedArrayBuffer(4));
const STALE_LOCK_MS = 10_000;

function withLock<T>(lock: string, fn: () => T): T {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx", 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      try {
        // A writer that died holding the lock must not stop the ledger forever.
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { force: true });
      } catch {
        // the lock went away meanwhile
      }
      if (Date.now() > deadline) throw new Error(`ledger is locked: ${lock}`);
      Atomics.wait(SLEEP, 0, 0, 10);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}
