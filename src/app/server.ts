/**
 * `forge serve` (R10.1): one process — Probot's own server (`run` from probot: webhook
 * signature check, GHE_HOST/GHE_PROTOCOL, the setup flow when the App has no credentials),
 * the embedded SQLite journal, the in-process queue and the local runner. Unfinished runs
 * are recovered on start (R10.1: it survives a restart mid-chain).
 */
import type { JournalStore, Logger } from "../chain/ports.js";
import { checkCredentials } from "../providers/credentials.js";
import { loadGateKey } from "../seal/index.js";
import { forgeHome } from "../store/forge-home.js";
import { openStore } from "../store/open-store.js";
import { PgJournal } from "../store/pg-journal.js";
import { forgeApp } from "./app.js";
import { composeServices } from "./compose.js";
import { probotInstallations } from "./installations.js";
import { readServeSettings, ServeConfigError } from "./serve-config.js";
import type { AppServices } from "./services.js";

export interface ForgeServerOptions {
  env: Record<string, string | undefined>;
  installRoot: string;
  /** Coalescing window for sticky comment edits (default 750 ms). */
  stickyDelayMs?: number;
}

export interface ForgeServer {
  /** True when Probot's setup flow runs instead of the App (no APP_ID / private key). */
  setup: boolean;
  port: number;
  services: AppServices | null;
  /** Stop listening; wait for queued jobs and reporting; close the journal. */
  close(options?: { waitForRuns?: boolean }): Promise<void>;
}

export async function startForgeServer(opts: ForgeServerOptions): Promise<ForgeServer> {
  const { run } = await import("probot");
  const env: Record<string, string | undefined> = { LOG_LEVEL: "info", ...opts.env };
  // Probot types LOG_LEVEL as a union; the value is passed through as given.
  const probotEnv = env as never;
  const hasKey = Boolean(env.PRIVATE_KEY || env.PRIVATE_KEY_PATH);
  if (!env.APP_ID || !hasKey) {
    const server = await run(() => {}, { env: probotEnv });
    return { setup: true, port: server.port, services: null, close: () => server.stop() };
  }
  const settings = readServeSettings(env);
  const creds = checkCredentials("claude", env);
  if (!creds.ok) throw new ServeConfigError(creds.message ?? "no model credentials");
  const home = forgeHome(env);
  const store: JournalStore = openStore(home, env);
  if (store instanceof PgJournal && !(await store.claimSoleServer())) {
    await store.close();
    throw new ServeConfigError(
      "another forge serve already uses this DATABASE_URL: several replicas on one database are not supported yet (docs/scaling.md); stop the other one, or give this one its own database",
    );
  }
  const key = await loadGateKey({ env, dir: home });
  let services: AppServices | null = null;
  const server = await run(
    async (app, options) => {
      const logger = app.log as unknown as Logger;
      services = composeServices({
        settings: {
          installRoot: opts.installRoot,
          forgeHome: home,
          env,
          box: settings.box,
          ownWork: settings.ownWork,
          autoProve: settings.autoProve,
          trusted: settings.trusted,
          gitBase: settings.gitBase,
          ...(creds.loginFile ? { loginFile: creds.loginFile } : {}),
        },
        store,
        installations: probotInstallations(app, {
          ...(settings.appSlug ? { botLogin: `${settings.appSlug}[bot]` } : {}),
        }),
        gateKey: key.key,
        logger,
        maxParallel: settings.maxParallel,
        ...(settings.stepTimeoutMs ? { stepTimeoutMs: settings.stepTimeoutMs } : {}),
        limits: settings.limits,
        ...(opts.stickyDelayMs !== undefined ? { stickyDelayMs: opts.stickyDelayMs } : {}),
      });
      await services.index.rebuild();
      await forgeApp(services)(app, options);
      const recovered = await services.engine.recover();
      logger.info(
        { forgeHome: home, gateKey: key.source, box: settings.box, recovered: recovered.length },
        "forgechain is serving",
      );
    },
    { env: probotEnv },
  );
  return {
    setup: false,
    port: server.port,
    get services() {
      return services;
    },
    async close(closeOptions = {}) {
      await server.stop();
      const s = services;
      if (s) {
        await s.queue.drain();
        if (closeOptions.waitForRuns) await s.engine.idle();
        await s.reporter.idle();
      }
      await store.close();
    },
  };
}
