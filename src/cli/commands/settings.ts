import type { Command } from "commander";
import { isRole, ROLES } from "../../roles/role-names.js";
import { effectiveSettings } from "../../roles/settings.js";
import { UsageError } from "../usage-error.js";

/** `forge settings <role>`: the effective settings JSON, exactly what the runner writes. */
export function registerSettings(program: Command): void {
  program
    .command("settings")
    .description("print the effective Claude Code settings of a role (hook commands made absolute)")
    .argument("<role>", ROLES.join(" | "))
    .action((role: string) => {
      if (!isRole(role))
        throw new UsageError(`unknown role "${role}" (one of ${ROLES.join(", ")})`);
      process.stdout.write(`${JSON.stringify(effectiveSettings(role), null, 2)}\n`);
    });
}
