import { readFile, stat } from "node:fs/promises";
import type { Command } from "commander";
import type { Decision } from "../../roles/decision.js";
import { outputValidator } from "../../roles/output-schema.js";
import { isRole, ROLES } from "../../roles/role-names.js";
import { decideVerdictFromText } from "../../roles/verdict.js";
import { UsageError } from "../usage-error.js";

/** Larger input is a FAIL, not a read: a role's output is kilobytes, a diff a few megabytes. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;

interface CheckOutputOptions {
  role: string;
  diff?: string;
}

export function registerCheckOutput(program: Command): void {
  program
    .command("check-output")
    .description(
      "apply the fail-closed verdict rules to a role's output (Claude Code's --output-format json " +
        "result or a bare structured object); prints {role, verdict, reasons, overridden}; " +
        "exit 0 on PASS, 1 on FAIL, 2 on bad usage",
    )
    .requiredOption("--role <role>", ROLES.join(" | "))
    .option("--diff <file>", "the change's diff: security fails on any secret in it")
    .argument("[file]", "the output to check, - for stdin", "-")
    .action(async (file: string, options: CheckOutputOptions) => {
      const role = options.role;
      if (!isRole(role)) {
        throw new UsageError(`unknown role ${JSON.stringify(role)} (expected ${ROLES.join(", ")})`);
      }
      if (file === "-" && options.diff === "-") {
        throw new UsageError("the output and the diff cannot both come from stdin");
      }
      const text = await readInput(file, "output");
      const diff = options.diff === undefined ? "" : await readInput(options.diff, "diff");
      const decision: Decision =
        text === TOO_LARGE || diff === TOO_LARGE
          ? {
              role,
              verdict: "FAIL",
              reasons: [`input larger than ${MAX_INPUT_BYTES} bytes`],
              overridden: false,
            }
          : (await decideVerdictFromText(role, text, { validator: outputValidator(), diff }))
              .decision;
      process.stdout.write(`${JSON.stringify(decision)}\n`);
      process.exitCode = decision.verdict === "PASS" ? 0 : 1;
    });
}

const TOO_LARGE = Symbol("too large");

/** Reads a file or stdin ("-"). A file that cannot be read is bad usage (exit 2). */
async function readInput(file: string, what: string): Promise<string | typeof TOO_LARGE> {
  if (file === "-") {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of process.stdin) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      size += buffer.length;
      if (size > MAX_INPUT_BYTES) return TOO_LARGE;
      chunks.push(buffer);
    }
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    if ((await stat(file)).size > MAX_INPUT_BYTES) return TOO_LARGE;
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new UsageError(`cannot read ${what} file ${JSON.stringify(file)} (${code})`);
  }
}
