// Building a new run: validate what the caller asks, freeze the snapshot (R8.5), lay out the
// chain's steps (R3.4). Pure; the engine journals the result.
import { CHAINS, isChainKind } from "../roles/role-names.js";
import type { StartRunInput } from "./engine.js";
import { InvalidInputError } from "./errors.js";
import { isValidId } from "./feedback.js";
import type { Transition } from "./ports.js";
import { freezeSnapshot } from "./snapshot.js";
import type { RunRecord, StepRecord, TaskInput } from "./types.js";

const MAX_TITLE = 1024;
const MAX_BODY = 256 * 1024;

export function newRun(
  input: StartRunInput,
  id: string,
  at: string,
): { run: RunRecord; steps: StepRecord[]; created: Transition["events"][number] } {
  if (!isChainKind(input.chain))
    throw new InvalidInputError(`unknown chain ${String(input.chain)}`);
  const budget = input.requestBudget;
  if (!Number.isInteger(budget) || budget < 1 || budget > 3) {
    throw new InvalidInputError("requestBudget must be an integer from 1 to 3");
  }
  checkTask(input.task);
  if (!input.repo || typeof input.repo.remote !== "string" || input.repo.remote === "") {
    throw new InvalidInputError("repo.remote is required");
  }
  if (typeof input.repo.baseRef !== "string" || input.repo.baseRef === "") {
    throw new InvalidInputError("repo.baseRef is required");
  }
  if (!isValidId(id)) throw new InvalidInputError(`the id source produced an unusable id ${id}`);
  const snapshot = freezeSnapshot(input.snapshotContent);
  const run: RunRecord = {
    id,
    chain: input.chain,
    state: "queued",
    task: { ...input.task },
    repo: { ...input.repo },
    baseSha: null,
    branch: null,
    snapshot,
    requestBudget: budget,
    createdAt: at,
    updatedAt: at,
  };
  const roles = CHAINS[input.chain];
  const steps: StepRecord[] = roles.map((role, index) => ({
    runId: id,
    index,
    role,
    state: "queued",
    attempt: 0,
    decision: null,
    output: null,
    startedAt: null,
    finishedAt: null,
  }));
  const created = {
    type: "run.created",
    data: {
      chain: input.chain,
      roles: [...roles],
      snapshotDigest: snapshot.digest,
      requestBudget: budget,
      repo: { ...input.repo },
      task: { title: input.task.title, number: input.task.number ?? null },
    },
  };
  return { run, steps, created };
}

function checkTask(task: TaskInput): void {
  if (!task || typeof task.title !== "string" || task.title.trim() === "") {
    throw new InvalidInputError("task.title is required");
  }
  if (typeof task.body !== "string") throw new InvalidInputError("task.body must be a string");
  // Untrusted text (SPEC §11) is size-limited before it is journaled or prompted.
  if (task.title.length > MAX_TITLE) {
    throw new InvalidInputError(`task.title exceeds ${MAX_TITLE} characters`);
  }
  if (task.body.length > MAX_BODY) {
    throw new InvalidInputError(`task.body exceeds ${MAX_BODY} characters`);
  }
}
