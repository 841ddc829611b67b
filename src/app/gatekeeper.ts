/**
 * Sealed human answers (R6.4), the engine-facing side. A trusted command becomes a seal
 * (`seal`); before anything acts on it, `act` rebuilds the fields from what is about to be
 * acted on — the run's OWN repository, the request and answer, for an approval the head and
 * the digest of the verdicts in the journal now — and verifies the seal against them, which
 * consumes its nonce in the journal. Every failure is a "no": journaled on the run
 * (`seal.refused`), shown in the sticky comment, and nothing else changes.
 */
import { randomBytes } from "node:crypto";
import type { ChainEngine } from "../chain/engine.js";
import { ChainError } from "../chain/errors.js";
import type { JournalStore, Logger } from "../chain/ports.js";
import type { RunRecord } from "../chain/types.js";
import { fieldsFor, type Gate, type Sealer, type VerifyFailure } from "../seal/index.js";
import { APPROVED_EVENT, runVerdictsDigest } from "./gate.js";
import { GATE_EVENT } from "./reporter-verdicts.js";
import { githubContextOf } from "./run-context.js";

export type HumanAnswer =
  | {
      gate: "respond";
      runId: string;
      actor: string;
      repo: string;
      requestId: string;
      answer: string;
    }
  | { gate: "resume" | "cancel"; runId: string; actor: string; repo: string }
  | {
      gate: "approve";
      runId: string;
      actor: string;
      repo: string;
      headSha: string;
      verdictsDigest: string;
    };

export interface SealedAnswer {
  answer: HumanAnswer;
  token: string;
}

export type GateOutcome = { ok: true; message: string } | { ok: false; message: string };

export interface Gatekeeper {
  seal(answer: HumanAnswer): SealedAnswer;
  act(sealed: SealedAnswer): Promise<GateOutcome>;
}

export interface GatekeeperDeps {
  store: JournalStore;
  engine: ChainEngine;
  sealer: Sealer;
  logger: Logger;
  /**
   * Why no answer can be sealed here, when that is so (the Action without a `gate_secret`):
   * every answer is then refused with this reason, journaled, instead of sealed with a key
   * that proves nothing to the next workflow run.
   */
  unsealable?: string;
  /** Called after anything was journaled on a run (the reporter re-renders). */
  onChange(runId: string, options?: { gate?: boolean }): void;
}

const WHY: Record<VerifyFailure, string> = {
  malformed: "the seal is malformed",
  "bad-signature": "the seal's signature is wrong (forged or made with another key)",
  expired: "the seal expired (answers are valid for 600 s)",
  "wrong-gate": "the seal is for another kind of answer",
  "wrong-run": "the seal is for another run",
  "fields-mismatch": "what the seal covers is not what would be acted on",
  replayed: "the seal was already used",
};

export function runRepo(run: RunRecord): string {
  return githubContextOf(run)?.fullName ?? run.repo.fullName ?? "";
}

/** The head the run's gate was last set on, or null when none was set. */
export async function gateHead(store: JournalStore, runId: string): Promise<string | null> {
  const last = [...(await store.events(runId))].reverse().find((e) => e.type === GATE_EVENT);
  return typeof last?.data.headSha === "string" ? last.data.headSha : null;
}

export function createGatekeeper(deps: GatekeeperDeps): Gatekeeper {
  const { store, engine, sealer } = deps;

  async function expectedFields(run: RunRecord, a: HumanAnswer): Promise<Record<string, string>> {
    const common = { actor: a.actor, repo: runRepo(run) };
    switch (a.gate) {
      case "respond":
        return fieldsFor("respond", { ...common, requestId: a.requestId, answer: a.answer });
      case "approve":
        return fieldsFor("approve", {
          ...common,
          headSha: (await gateHead(store, run.id)) ?? "",
          verdictsDigest: runVerdictsDigest(await store.getSteps(run.id)),
        });
      default:
        return fieldsFor(a.gate, common);
    }
  }

  async function refuse(run: RunRecord, a: HumanAnswer, reason: string): Promise<GateOutcome> {
    await store.transition(run.id, {
      events: [{ type: "seal.refused", data: { gate: a.gate, actor: a.actor, reason } }],
    });
    deps.onChange(run.id);
    return { ok: false, message: `refused: ${reason}. Nothing changed; the gate stays pending.` };
  }

  async function perform(run: RunRecord, a: HumanAnswer): Promise<string> {
    switch (a.gate) {
      case "respond":
        await engine.respond(run.id, {
          requestId: a.requestId,
          answer: a.answer,
          actor: a.actor,
          responseId: `r-${randomBytes(8).toString("hex")}`,
          fromRepo: a.repo,
        });
        return `answer to \`${a.requestId}\` recorded; the run stays paused until \`/forge resume ${run.id}\`.`;
      case "resume":
        await engine.resume(run.id, { actor: a.actor });
        return `run \`${run.id}\` continues.`;
      case "cancel":
        await engine.cancel(run.id, `cancelled by @${a.actor} with /forge cancel`);
        return `run \`${run.id}\` is cancelled.`;
      case "approve":
        await store.transition(run.id, {
          events: [
            {
              type: APPROVED_EVENT,
              data: { actor: a.actor, headSha: a.headSha, verdictsDigest: a.verdictsDigest },
            },
          ],
        });
        deps.onChange(run.id, { gate: true });
        return `protected paths approved for head \`${a.headSha.slice(0, 12)}\`; \`forge/gate\` is re-decided.`;
    }
  }

  return {
    seal(answer) {
      const { gate, runId } = answer;
      const common = { actor: answer.actor, repo: answer.repo };
      const fields =
        answer.gate === "respond"
          ? fieldsFor("respond", { ...common, requestId: answer.requestId, answer: answer.answer })
          : answer.gate === "approve"
            ? fieldsFor("approve", {
                ...common,
                headSha: answer.headSha,
                verdictsDigest: answer.verdictsDigest,
              })
            : fieldsFor(gate as Exclude<Gate, "respond" | "approve">, common);
      return { answer, token: sealer.seal({ gate, runId, fields }).token };
    },

    async act(sealed) {
      const a = sealed.answer;
      const run = await store.getRun(a.runId);
      if (!run) return { ok: false, message: `there is no run \`${a.runId}\`; nothing changed.` };
      if (deps.unsealable) return refuse(run, a, deps.unsealable);
      const fields = await expectedFields(run, a);
      const result = await sealer.verify(
        sealed.token,
        { gate: a.gate, runId: run.id, fields },
        (nonce, expiresAt) => store.consumeNonce(nonce, expiresAt),
      );
      if (!result.ok) {
        const reason =
          result.reason === "fields-mismatch" && a.repo !== runRepo(run)
            ? "the answer came from another repository"
            : WHY[result.reason];
        deps.logger.warn({ runId: run.id, gate: a.gate, reason: result.reason }, "seal refused");
        return refuse(run, a, reason);
      }
      try {
        const message = await perform(run, a);
        await store.transition(run.id, {
          events: [{ type: "seal.accepted", data: { gate: a.gate, actor: a.actor } }],
        });
        deps.onChange(run.id);
        return { ok: true, message };
      } catch (err) {
        // The engine refused (answered request, pending question, not paused, …): it wrote
        // nothing, and the reply says why.
        if (err instanceof ChainError)
          return { ok: false, message: `${err.message}; nothing changed.` };
        throw err;
      }
    },
  };
}
