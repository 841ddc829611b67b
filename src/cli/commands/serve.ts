// `forge serve` (and `npm start`): the GitHub App — Probot's server with the embedded journal,
// the in-process queue and the local runner (R10.1). Without APP_ID and a private key it
// starts Probot's setup flow, which registers the App from app.yml and writes ./.env.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { ServeConfigError, serveHelpText } from "../../app/serve-config.js";
import { startForgeServer } from "../../app/server.js";
import { installRoot } from "../../install-root.js";
import { UsageError } from "../usage-error.js";

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description(
      "run the GitHub App: webhooks → chains in bwrap boxes → check runs, sticky comment, draft PR, forge/gate",
    )
    .addHelpText("after", serveHelpText())
    .action(async () => {
      const root = installRoot();
      // Probot reads ./.env and app.yml (the manifest for the setup flow) from the working
      // directory; outside the checkout there is no app.yml, so use the checkout's.
      if (!existsSync(join(process.cwd(), "app.yml"))) process.chdir(root);
      if (existsSync(".env")) process.loadEnvFile(".env");
      try {
        const server = await startForgeServer({ env: process.env, installRoot: root });
        const stop = () => {
          void server.close().finally(() => process.exit(0));
        };
        process.once("SIGTERM", stop);
        if (server.setup) {
          process.stderr.write(
            `forge serve: no App credentials (APP_ID, PRIVATE_KEY/PRIVATE_KEY_PATH): Probot's setup flow is on http://localhost:${server.port}\n`,
          );
        }
      } catch (error) {
        if (error instanceof ServeConfigError) throw new UsageError(error.message);
        throw error;
      }
    });
}
