import { type DeepSecretFinding, redactDeep, redactSecrets } from "../secrets/index.js";
import type { Decision } from "./decision.js";
import { type OutputValidator, outputValidator } from "./output-schema.js";
import type { Role } from "./role-names.js";
import { isRecord, type Unwrapped, unwrapOutput } from "./verdict-envelope.js";
import { parseOutputText } from "./verdict-parse.js";
import { diffSecretReasons, outputSecretReasons, textSecretReasons } from "./verdict-secrets.js";

export { NOT_JSON, type ParsedOutput, parseOutputText } from "./verdict-parse.js";

export interface VerdictOptions {
  /** The change's diff (`git diff <base>..HEAD`); security FAILs on any secret in it (R3.3). */
  diff?: string;
  /** Compiled output schemas; default: `<installRoot>/schemas`, compiled once per process. */
  validator?: OutputValidator;
}

export interface VerdictResult {
  decision: Decision;
  /** The structured output with every secret redacted, or null when there was none. */
  output: unknown;
}

const FINDING_ROLES: ReadonlySet<Role> = new Set(["reviewer", "security"]);
const MAX_REASON = 2000;

/**
 * Applies R3.2–R3.3 to what a role step printed (already parsed JSON). Fail-closed: the
 * verdict is PASS only when the run succeeded, its structured output is schema-valid and says
 * PASS, and no override rule fires. Never throws on bad input; every reason is redacted.
 */
export async function decideVerdict(
  role: Role,
  raw: unknown,
  opts: VerdictOptions = {},
): Promise<VerdictResult> {
  const validator = opts.validator ?? outputValidator();
  const unwrapped = unwrapOutput(raw);
  const reasons: string[] = [...unwrapped.runErrors];
  let output: unknown = null;
  let saidPass = false;
  let valid = false;
  let outputSecrets: DeepSecretFinding[] = [];

  if (unwrapped.structured === undefined) {
    reasons.push(
      unwrapped.kind === "envelope"
        ? "no structured output (structured_output is null or missing)"
        : "no structured output",
    );
  } else {
    const redacted = await redactDeep(unwrapped.structured);
    output = redacted.value;
    outputSecrets = redacted.findings;
    // Validate the original: redaction changes string lengths.
    const validation = validator.validateStructured(role, unwrapped.structured);
    if (validation.ok) valid = true;
    else for (const error of validation.errors) reasons.push(`structured output invalid: ${error}`);
    const verdict = isRecord(unwrapped.structured) ? unwrapped.structured.verdict : undefined;
    saidPass = valid && verdict === "PASS";
    if (valid && verdict === "FAIL") reasons.push(`${role} wrote verdict FAIL`);
  }

  // R3.3: a blocking finding fails a review whatever verdict was written. Counted on the
  // redacted copy (locations go into the reason), and also when the output is otherwise invalid.
  let overrideFired = false;
  if (FINDING_ROLES.has(role)) {
    const blocking = blockingLocations(output);
    if (blocking.length > 0) {
      overrideFired = true;
      const where = blocking.slice(0, 10).join(", ") + (blocking.length > 10 ? ", …" : "");
      reasons.push(
        `${blocking.length} blocking finding${blocking.length === 1 ? "" : "s"} (${where}): a ${role} step with a blocking finding fails` +
          (saidPass ? "; the engine overrides its PASS" : ""),
      );
    }
  }

  const secretNotes: string[] = [];
  if (role === "security") {
    const secretReasons = [
      ...outputSecretReasons(outputSecrets, output),
      ...(await textSecretReasons("the run's result text", freeResultText(unwrapped))),
      ...(await diffSecretReasons(opts.diff)),
    ];
    if (secretReasons.length > 0) {
      overrideFired = true;
      reasons.push(...secretReasons);
      if (saidPass) reasons.push("a secret was found: the engine overrides the security PASS");
    }
  } else if (outputSecrets.length > 0) {
    const rules = [...new Set(outputSecrets.map((f) => f.ruleId))].join(", ");
    secretNotes.push(
      `note: ${outputSecrets.length} secret${outputSecrets.length === 1 ? "" : "s"} redacted from the output (${rules})`,
    );
  }

  const pass = saidPass && unwrapped.runErrors.length === 0 && !overrideFired;
  if (pass) reasons.unshift(`${role} wrote PASS in schema-valid structured output`);
  reasons.push(...secretNotes);
  const decision: Decision = {
    role,
    verdict: pass ? "PASS" : "FAIL",
    reasons: await safeReasons(reasons),
    overridden: saidPass && overrideFired,
  };
  return { decision, output };
}

/** What a step's raw output claims before any rule is applied: not a verdict. */
export interface OutputClaims {
  /** Schema-valid structured output saying PASS, from a run that did not error. */
  pass: boolean;
  /** The structured output carries a `request` for a human. */
  asks: boolean;
}

/**
 * What the raw output claims, for a runner deciding whether something is worth measuring (the
 * builder's checks, a warm successor): only the engine judges, with decideVerdict. For the
 * builder and the architect `pass` is exactly decideVerdict's PASS — no override rule covers
 * them. Never throws: a claim that cannot be read claims nothing, and the verdict reports why.
 */
export function outputClaims(role: Role, raw: unknown, validator?: OutputValidator): OutputClaims {
  try {
    const { structured, runErrors } = unwrapOutput(raw);
    if (!isRecord(structured)) return { pass: false, asks: false };
    const asks = isRecord(structured.request);
    if (runErrors.length > 0 || structured.verdict !== "PASS") return { pass: false, asks };
    const valid = (validator ?? outputValidator()).validateStructured(role, structured).ok;
    return { pass: valid, asks };
  } catch {
    return { pass: false, asks: false };
  }
}

/**
 * Compiles the output schemas and loads the secret rules now instead of in the first verdict
 * (≈ 0.1 s of CPU once per process, measured): the runner calls it while an agent works. A
 * failure is left for the verdict itself to report.
 */
export async function prepareVerdicts(validator?: () => OutputValidator): Promise<void> {
  try {
    (validator ?? outputValidator)();
    await redactSecrets("");
  } catch {
    // decideVerdict meets the same error and FAILs the step with it.
  }
}

/** decideVerdict for raw text: non-JSON text is a FAIL ("output is not JSON"), never a throw. */
export async function decideVerdictFromText(
  role: Role,
  text: string,
  opts: VerdictOptions = {},
): Promise<VerdictResult> {
  const parsed = parseOutputText(text);
  if (!parsed.ok) {
    return {
      decision: { role, verdict: "FAIL", reasons: [parsed.reason], overridden: false },
      output: null,
    };
  }
  return decideVerdict(role, parsed.value, opts);
}

/**
 * The envelope's `result` text when it says something beyond the structured output. With
 * --json-schema the CLI puts the structured output's JSON there too; scanning it again would
 * only repeat every secret reason.
 */
function freeResultText(unwrapped: Unwrapped): string | undefined {
  const text = unwrapped.resultText;
  if (text === undefined || unwrapped.structured === undefined) return text;
  const parsed = parseOutputText(text);
  return parsed.ok && JSON.stringify(parsed.value) === JSON.stringify(unwrapped.structured)
    ? undefined
    : text;
}

function blockingLocations(output: unknown): string[] {
  if (!isRecord(output) || !Array.isArray(output.findings)) return [];
  return output.findings
    .filter((f) => isRecord(f) && f.severity === "blocking")
    .map((f) => (isRecord(f) && typeof f.location === "string" ? clip(f.location, 120) : "?"));
}

/** Redact first, clip after: clipping first could cut a secret so that it no longer matches. */
async function safeReasons(reasons: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const reason of reasons) out.push(clip((await redactSecrets(reason)).text, MAX_REASON));
  return out;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
