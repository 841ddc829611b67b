/**
 * The two HTTP routes of an Actions job running a step, each taking the job's OIDC token for
 * exactly that step attempt, once (step-reports.ts):
 * - `GET /forge/step-input?run=&index=&attempt=` (token as `Authorization: Bearer`): the run and
 *   the step's input, as the engine gave them when it dispatched the step;
 * - `POST /forge/step-report` (JSON): the job's result, accepted only while the App waits for
 *   it, journaled on the run, where the waiting step (on any replica) finds it.
 * Refusals are journaled on the run when there is one, so a forged or replayed request is
 * visible, and answered with the reason.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JournalStore, Logger } from "../chain/ports.js";
import { type ActionsTokenDeps, IssuerKeysUnavailableError } from "../github/index.js";
import { redactSecrets } from "../secrets/index.js";
import {
  PICKED_EVENT,
  REPORT_REFUSED_EVENT,
  REPORTED_EVENT,
  stepJobInput,
  waitingStep,
} from "./actions-steps.js";
import { acceptStepReport, authorizeStepJob, MAX_RESULT_BYTES } from "./step-reports.js";

export const STEP_REPORT_PATH = "/forge/step-report";
export const STEP_INPUT_PATH = "/forge/step-input";
/** The report's JSON: the result, the token and a little framing. */
const MAX_BODY_BYTES = MAX_RESULT_BYTES + 64 * 1024;

export interface StepReportRouteDeps {
  store: JournalStore;
  logger: Logger;
  verify?: ActionsTokenDeps;
}

/** A node:http handler (Probot's `addHandler` takes it): true when the request was ours. */
export function stepReportHandler(deps: StepReportRouteDeps) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = new URL(req.url ?? "/", "http://forge");
    if (url.pathname === STEP_INPUT_PATH) {
      const [status, body] = await stepInput(req, url, deps);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
      return true;
    }
    if (url.pathname !== STEP_REPORT_PATH) return false;
    if (req.method !== "POST") {
      reply(res, 405, "POST a step report here");
      return true;
    }
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === null) {
      reply(res, 413, `a step report is at most ${MAX_BODY_BYTES} bytes`);
      return true;
    }
    let report: unknown;
    try {
      report = JSON.parse(body);
    } catch {
      reply(res, 400, "the report is not JSON");
      return true;
    }
    const [status, message] = await settle(report, deps);
    reply(res, status, message);
    return true;
  };
}

async function settle(report: unknown, deps: StepReportRouteDeps): Promise<[number, string]> {
  const { store } = deps;
  let outcome: Awaited<ReturnType<typeof acceptStepReport>>;
  try {
    outcome = await acceptStepReport(report, {
      dispatched: (runId, index, attempt) => waitingStep(store, runId, index, attempt),
      store,
      ...(deps.verify ? { verify: deps.verify } : {}),
    });
  } catch (err) {
    if (err instanceof IssuerKeysUnavailableError) {
      deps.logger.warn({ err: err.message }, "step report: the token issuer is out of reach");
      return [503, `${err.message}; send the report again`];
    }
    throw err;
  }
  if (!outcome.ok) {
    await journalRefusal(report, outcome, deps);
    const status =
      outcome.kind === "malformed-report"
        ? 400
        : outcome.kind === "too-large"
          ? 413
          : outcome.kind === "not-dispatched"
            ? 409
            : 403;
    return [status, `refused: ${outcome.reason}`];
  }
  // The journal never holds a secret: an output whose redaction breaks its schema FAILs.
  const result = JSON.parse((await redactSecrets(JSON.stringify(outcome.result))).text) as unknown;
  await store.transition(outcome.runId, {
    events: [
      {
        type: REPORTED_EVENT,
        data: {
          index: outcome.index,
          attempt: outcome.attempt,
          result,
          job: {
            runId: outcome.claims.runId,
            actor: outcome.claims.actor,
            sha: outcome.claims.sha,
          },
        },
      },
    ],
    expect: { runStates: ["running"] },
  });
  return [202, "accepted"];
}

/** The step's input for its job, once its token holds. */
async function stepInput(
  req: IncomingMessage,
  url: URL,
  deps: StepReportRouteDeps,
): Promise<[number, unknown]> {
  if (req.method !== "GET") return [405, { message: "GET a step's input here" }];
  const job = {
    token: /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "",
    runId: url.searchParams.get("run") ?? "",
    index: Number(url.searchParams.get("index")),
    attempt: Number(url.searchParams.get("attempt")),
  };
  if (!job.token || !/^[A-Za-z0-9_-]{1,128}$/.test(job.runId)) {
    return [400, { message: "a step input request names run, index and attempt, with a token" }];
  }
  if (!Number.isInteger(job.index) || !Number.isInteger(job.attempt)) {
    return [400, { message: "index and attempt are integers" }];
  }
  const { store } = deps;
  let authorized: Awaited<ReturnType<typeof authorizeStepJob>>;
  try {
    authorized = await authorizeStepJob(job, {
      dispatched: (runId, index, attempt) => waitingStep(store, runId, index, attempt),
      store,
      ...(deps.verify ? { verify: deps.verify } : {}),
    });
    if (!authorized.ok) {
      await journalRefusal(job, authorized, deps);
      return [
        authorized.kind === "not-dispatched" ? 409 : 403,
        { message: `refused: ${authorized.reason}` },
      ];
    }
  } catch (err) {
    if (!(err instanceof IssuerKeysUnavailableError)) throw err;
    return [503, { message: `${err.message}; ask again` }];
  }
  const input = await stepJobInput(store, job.runId, job.index, job.attempt);
  if (!input) return [409, { message: "the step has no input to give" }];
  // Which workflow run took the step: the one to cancel if the App stops waiting for it.
  await store.transition(job.runId, {
    events: [
      {
        type: PICKED_EVENT,
        data: { index: job.index, attempt: job.attempt, workflowRunId: authorized.claims.runId },
      },
    ],
  });
  return [200, input];
}

/** A refusal goes on the run it names, if that run exists: whoever watches the run sees it. */
async function journalRefusal(
  report: unknown,
  outcome: { kind: string; reason: string },
  deps: StepReportRouteDeps,
): Promise<void> {
  const r = (report ?? {}) as { runId?: unknown; index?: unknown; attempt?: unknown };
  deps.logger.warn({ kind: outcome.kind, reason: outcome.reason }, "step report refused");
  if (typeof r.runId !== "string" || !(await deps.store.getRun(r.runId).catch(() => null))) return;
  await deps.store.transition(r.runId, {
    events: [
      {
        type: REPORT_REFUSED_EVENT,
        data: {
          index: typeof r.index === "number" ? r.index : null,
          attempt: typeof r.attempt === "number" ? r.attempt : null,
          kind: outcome.kind,
          reason: outcome.reason.slice(0, 500),
        },
      },
    ],
  });
}

function readBody(req: IncomingMessage, max: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners("data");
        req.resume();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(size > max ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ message }));
}
