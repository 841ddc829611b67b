// Warm starts. A Claude Code process takes about half a second to start (measured: 0.55-0.6 s
// to its first output here), most of a short step. So while a step's agent runs, the runner
// may start the NEXT step's agent in its own box, without its prompt: it starts up and waits on
// stdin. Nothing is sent to it before its own step starts, which the engine does only after
// this step PASSed (R3.4); if it does not, the warm agent is killed unprompted.
//
// A warm agent must not keep a stale picture of the tree. Claude Code snapshots git status
// into its context when it starts, unless its settings say `includeGitInstructions: false`
// (ours do; measured: a warm agent prompted after the tree changed sends the same first request
// as one started cold on the new tree). Each step has a workspace of its own, laid out before
// its warm agent starts; only the reviewer's, laid out while the builder works, is moved to the
// builder's work before its prompt. An agent whose settings lack the key is therefore not
// warm-started behind the builder.

import { type LaunchedAgent, type PreparedAgent, stopLaunched } from "./agent-launch.js";
import type { TreeManifest } from "./tree-manifest.js";

export interface WarmAgent {
  prepared: PreparedAgent;
  launched: LaunchedAgent;
  /**
   * R4.5: a read-only step's workspace as it was laid out, before the warm agent started
   * (null for a writer). A workspace moved to another commit later is listed again then.
   */
  before: TreeManifest | null;
  /** The agents' commit the warm agent's workspace was laid out at. */
  commit: string;
}

export interface WarmKey {
  runId: string;
  index: number;
  role: string;
  attempt: number;
}

export interface WarmAgents {
  /**
   * Start preparing `key`: the run's other warm agents are killed, then `start` runs; its agent
   * is kept for `take`. The entry counts from this call on: a `take` or `discard` that comes
   * while the agent is starting waits for it.
   */
  prepare(key: WarmKey, start: () => Promise<WarmAgent | null>): Promise<void>;
  /** The warm agent for exactly this step, if one is alive; any other one of the run is killed. */
  take(key: WarmKey): Promise<WarmAgent | null>;
  /** Kill every warm agent of a run (its step failed, paused, was cancelled, or it finished). */
  discard(runId: string): Promise<void>;
}

const same = (a: WarmKey, b: WarmKey) =>
  a.runId === b.runId && a.index === b.index && a.role === b.role && a.attempt === b.attempt;

/** An unused warm agent is killed after this long (a run that stopped between steps). */
export const WARM_IDLE_MS = 60_000;

export function createWarmAgents(idleMs = WARM_IDLE_MS): WarmAgents {
  const entries: Array<{
    key: WarmKey;
    agent: Promise<WarmAgent | null>;
    // Unref'd like the warm agent itself (AgentHandle.hold): neither keeps the runner alive.
    timer: NodeJS.Timeout;
  }> = [];

  type Entry = (typeof entries)[number];
  const stop = async (e: Entry) => {
    clearTimeout(e.timer);
    const agent = await e.agent;
    if (agent) {
      await stopLaunched(agent.launched);
    }
  };
  const end = async (i: number) => {
    const [e] = entries.splice(i, 1);
    if (e) await stop(e);
  };

  /** Takes the run's entries out of the cache at once (no later discard can miss one). */
  const removeRun = (runId: string): Entry[] => {
    const removed = entries.filter((e) => e.key.runId === runId);
    for (const e of removed) entries.splice(entries.indexOf(e), 1);
    return removed;
  };

  const discard = async (runId: string) => {
    await Promise.all(removeRun(runId).map(stop));
  };

  return {
    async prepare(key, start) {
      // The entry is in the cache from this call on, before anything is awaited: a discard that
      // comes while the agent is still starting (its step failed) waits for it and kills it.
      const older = removeRun(key.runId);
      const agent = Promise.all(older.map(stop))
        .then(start)
        .catch(() => null);
      const entry = {
        key,
        agent,
        timer: setTimeout(() => {
          const i = entries.indexOf(entry);
          if (i >= 0) void end(i);
        }, idleMs).unref(),
      };
      entries.push(entry);
      await agent;
    },
    async take(key) {
      const i = entries.findIndex((e) => same(e.key, key));
      let found: WarmAgent | null = null;
      if (i >= 0) {
        const [e] = entries.splice(i, 1);
        if (e) {
          clearTimeout(e.timer);
          found = await e.agent;
        }
      }
      await discard(key.runId);
      if (found?.launched.handle.exited) {
        // It died before its prompt (out of memory, a broken install): start one cold.
        found.launched.cleanup();
        return null;
      }
      return found;
    },
    discard,
  };
}
