// What the Actions runner gives the packaged Action, for its tests and its bench: the event file,
// the runner's variables and INPUT_* (mirroring the workflow in docs/github-action.md), and the
// runner's own reading of $GITHUB_OUTPUT.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { FULL } from "../app/payloads.js";

/** The event payload as a workflow gets it (no installation), written where the runner puts it. */
export function writeEvent(temp: string, payload: Record<string, unknown>): string {
  const event = join(temp, "event.json");
  const { installation: _none, ...workflowPayload } = payload;
  writeFileSync(event, JSON.stringify(workflowPayload));
  return event;
}

export interface RunnerEnvInput {
  /** The fake GitHub's host:port. */
  host: string;
  /** forgechain's checkout (its node_modules/.bin holds the pinned claude). */
  root: string;
  /** RUNNER_TEMP, also HOME and GITHUB_WORKSPACE: a fresh runner. */
  temp: string;
  eventName: string;
  event: string;
  runId: string;
  token: string;
  modelUrl: string;
  output: string;
  summary?: string;
}

/** Obviously fake values of what the runner and the workflow hold; no box may ever see them. */
export const GATE_SECRET = "forge-test-gate-secret-not-a-real-one-0000";
export const RUNTIME_SECRETS = {
  ACTIONS_RUNTIME_TOKEN: "forge-test-actions-runtime-token-not-real",
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: "forge-test-id-token-request-token-not-real",
  ACTIONS_ID_TOKEN_REQUEST_URL: "http://127.0.0.1:9/forge-test-id-token",
  ACTIONS_CACHE_URL: "http://127.0.0.1:9/forge-test-cache/",
};

export function runnerEnv(o: RunnerEnvInput): Record<string, string> {
  return {
    PATH: `${join(o.root, "node_modules", ".bin")}:/usr/local/bin:/usr/bin:/bin`,
    HOME: o.temp,
    GITHUB_EVENT_NAME: o.eventName,
    GITHUB_EVENT_PATH: o.event,
    GITHUB_REPOSITORY: FULL,
    GITHUB_API_URL: `http://${o.host}/api/v3`,
    GITHUB_GRAPHQL_URL: `http://${o.host}/api/graphql`,
    GITHUB_SERVER_URL: `http://${o.host}`,
    GITHUB_WORKSPACE: o.temp,
    GITHUB_OUTPUT: o.output,
    ...(o.summary ? { GITHUB_STEP_SUMMARY: o.summary } : {}),
    RUNNER_TEMP: o.temp,
    RUNNER_TOOL_CACHE: join(o.temp, "tool-cache"),
    GITHUB_ACTOR: "alice",
    GITHUB_RUN_ID: o.runId,
    INPUT_GITHUB_TOKEN: o.token,
    INPUT_ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
    INPUT_TRIGGER_LABEL: "forge",
    INPUT_REVIEW_LABEL: "forge:review",
    INPUT_GATE_SECRET: GATE_SECRET,
    ...RUNTIME_SECRETS,
    ANTHROPIC_BASE_URL: o.modelUrl,
  };
}

/** $GITHUB_OUTPUT as the runner reads it (name<<DELIMITER … DELIMITER). */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? "");
    if (!m) continue;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) body.push(lines[i] ?? "");
    out[m[1] as string] = body.join("\n");
  }
  return out;
}
