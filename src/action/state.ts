// The packaged Action's journal between workflow runs (R10.3): one SQLite file per issue or pull
// request, kept in the repository under refs/forge/state/<number> (src/store/ref-state.ts). A
// workflow run first CLAIMS it — a snapshot naming the run, written compare-and-swap — so two
// workflow runs for the same issue never both act: the second finds the claim and stops (or,
// when the claim is older than any job may run, takes it over). It works on a copy under
// RUNNER_TEMP and writes it back when done: runs, steps, events, requests, answers, consumed
// seal nonces and proofs travel with it, so a paused run continues on a fresh runner and a
// replayed seal is refused there too.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  RefStateConflict,
  type RefStateTarget,
  readRefState,
  writeRefState,
} from "../store/ref-state.js";

export const JOURNAL_FILE = "journal.db";
const META_FILE = "claim.json";
/** GitHub ends a job after 6 hours (35 days on self-hosted, but the App's runs are not those). */
export const DEFAULT_STALE_AFTER_MS = 6 * 60 * 60 * 1000;

export interface Holder {
  runId: string;
  attempt: string;
  actor: string;
}

interface Meta {
  holder: Holder;
  claimedAt: string;
  released: boolean;
}

/** Another workflow run holds this state: this one must not act. */
export class StateBusyError extends Error {
  override readonly name = "StateBusyError";
  constructor(
    readonly holder: Holder,
    readonly claimedAt: string,
  ) {
    super(
      `workflow run ${holder.runId} (attempt ${holder.attempt}, by ${holder.actor}) is acting on this since ${claimedAt}; this run does nothing — the concurrency group of the example workflow queues such runs instead`,
    );
  }
}

export interface ClaimedState {
  /** The journal to open (absent content: a new journal). */
  journalFile: string;
  /** Writes the journal back and releases the claim. Call after the journal is closed. */
  release(): Promise<void>;
}

export async function claimState(o: {
  target: RefStateTarget;
  /** A directory of this workflow run's (RUNNER_TEMP): the journal's copy lives here. */
  dir: string;
  holder: Holder;
  now?: () => Date;
  staleAfterMs?: number;
}): Promise<ClaimedState> {
  const now = o.now ?? (() => new Date());
  const journalFile = join(o.dir, JOURNAL_FILE);
  for (let attempt = 0; ; attempt++) {
    const seen = await readRefState(o.target);
    const meta = parseMeta(seen.files.get(META_FILE));
    const age = meta ? now().getTime() - Date.parse(meta.claimedAt) : Number.POSITIVE_INFINITY;
    if (meta && !meta.released && age < (o.staleAfterMs ?? DEFAULT_STALE_AFTER_MS)) {
      throw new StateBusyError(meta.holder, meta.claimedAt);
    }
    const journal = seen.files.get(JOURNAL_FILE);
    const claim: Meta = { holder: o.holder, claimedAt: now().toISOString(), released: false };
    const files = new Map(seen.files);
    files.set(META_FILE, Buffer.from(JSON.stringify(claim)));
    let claimed: string;
    try {
      claimed = await writeRefState(
        o.target,
        seen.oid,
        files,
        `claim by workflow run ${o.holder.runId}`,
      );
    } catch (error) {
      // Someone wrote between our read and our write: read again (their claim, or their release).
      if (error instanceof RefStateConflict && attempt < 3) continue;
      throw error;
    }
    if (journal) await writeFile(journalFile, journal, { mode: 0o600 });
    return {
      journalFile,
      async release() {
        const bytes = await readFile(journalFile).catch(() => null);
        const out = new Map<string, Buffer>();
        if (bytes) out.set(JOURNAL_FILE, bytes);
        out.set(META_FILE, Buffer.from(JSON.stringify({ ...claim, released: true })));
        // A conflict here means the claim was taken over as stale: our journal is not merged.
        await writeRefState(o.target, claimed, out, `journal of workflow run ${o.holder.runId}`);
      },
    };
  }
}

function parseMeta(bytes: Buffer | undefined): Meta | null {
  if (!bytes) return null;
  try {
    const m = JSON.parse(bytes.toString("utf8")) as Meta;
    if (typeof m.claimedAt !== "string" || typeof m.holder?.runId !== "string") return null;
    return m;
  } catch {
    return null;
  }
}

/** The ref an issue's or a pull request's state lives under. */
export function stateRef(number: number): string {
  if (!Number.isInteger(number) || number < 1) throw new Error(`not an issue number: ${number}`);
  return `refs/forge/state/${number}`;
}
