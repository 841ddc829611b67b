/**
 * `forge serve` (R10.1): one process — Probot's own server (`run` from probot: webhook
 * signature check, GHE_HOST/GHE_PROTOCOL, the setup flow when the App has no credentials),
 * the journal, the in-process queue and the local runner. Unfinished runs are recovered on
 * start (R10.1: it survives a restart mid-chain). On PostgreSQL several replicas may share the
 * journal (R10.2): each run is driven under a lease, and each replica sweeps for runs whose
 * driver stopped renewing its lease, to take them over.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { LeaseOptions } from "../chain/leases.js";
import type { JournalStore, Logger } from "../chain/ports.js";
import { checkCredentials } from "../providers/credentials.js";
import { loadGateKey } from "../seal/index.js";
import { forgeHome } from "../store/forge-home.js";
import { openStore } from "../store/open-store.js";
import { PgJournal } from "../store/pg-journal.js";
import { stepReportHandler } from "./actions-routes.js";
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
  // SQLite is one process's file: no other replica can drive its runs, so no leases.
  const lease: LeaseOptions | undefined =
    store instanceof PgJournal
      ? {
          owner: `${hostname()}:${process.pid}:${randomBytes(6).toString("hex")}`,
          ttlMs: settings.leaseMs,
        }
      : undefined;
  let sweep: NodeJS.Timeout | null = null;
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
        ...(lease ? { lease } : {}),
        ...(settings.actions ? { actions: settings.actions } : {}),
        ...(opts.stickyDelayMs !== undefined ? { stickyDelayMs: opts.stickyDelayMs } : {}),
      });
      await services.index.rebuild();
      await forgeApp(services)(app, options);
      // The jobs' two routes, only where steps run on Actions: nothing else answers them.
      if (settings.actions) {
        options.addHandler(
          stepReportHandler({ store, logger, verify: { issuer: settings.actions.issuer } }),
        );
      }
      const recovered = await services.engine.recover();
      if (lease) sweep = sweepForOrphans(services, lease, logger);
      logger.info(
        {
          forgeHome: home,
          gateKey: key.source,
          box: settings.box,
          runner: settings.actions ? `actions (${settings.actions.workflowPath})` : "local",
          recovered: recovered.length,
          ...(lease ? { lease: lease.owner } : {}),
        },
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
      if (sweep) clearInterval(sweep);
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

/**
 * Every third of a lease, looks for runs whose driver stopped renewing (a replica killed, a
 * host gone) and takes them over: a run is orphaned at most a lease and a third.
 */
function sweepForOrphans(s: AppServices, lease: LeaseOptions, logger: Logger): NodeJS.Timeout {
  let sweeping = false;
  const timer = setInterval(
    () => {
      if (sweeping) return;
      sweeping = true;
      s.engine
        .recover()
        .catch((err: unknown) =>
          logger.warn({ err: String(err) }, "looking for orphaned runs failed"),
        )
        .finally(() => {
          sweeping = false;
        });
    },
    Math.max(500, Math.floor(lease.ttlMs / 3)),
  );
  timer.unref();
  return timer;
}
