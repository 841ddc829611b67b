// A throwaway PostgreSQL server for tests and benchmarks: a cluster made by the Debian
// `postgresql` package's own initdb in a temp directory, started with pg_ctl on a free loopback
// port, removed afterwards. PostgreSQL refuses to run as root, so as root the cluster belongs to
// an unprivileged uid (the box uid). Nothing is assumed running: a missing installation fails
// loudly with what to install.
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface PostgresServer {
  /** postgres://… for the `postgres` superuser (trust on loopback). */
  url: string;
  /** A new, empty database on this server: its URL. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

/** The directory holding initdb and pg_ctl: PATH first, then Debian's versioned directories. */
export function postgresBin(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return join(base, versions[0], "bin");
  throw new Error(
    "PostgreSQL is not installed: `apt-get install postgresql` (bash .ci/run installs it)",
  );
}

/** The unprivileged account to own the cluster when we are root: postgres if present, else nobody. */
function account(): { uid: number; gid: number } {
  const passwd = readFileSync("/etc/passwd", "utf8").split("\n");
  for (const name of ["postgres", "nobody"]) {
    const f = passwd.find((l) => l.startsWith(`${name}:`))?.split(":");
    if (f && Number(f[2]) > 0) return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  throw new Error("no unprivileged account (postgres or nobody) to run PostgreSQL as");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startPostgres(o: { durable?: boolean } = {}): Promise<PostgresServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), "forge-pg-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  // initdb looks its user up by uid: an account that exists (Debian always has `nobody`).
  const user = asRoot ? account() : null;
  if (user) chownSync(dir, user.uid, user.gid);
  const as = (cmd: string, args: string[]) =>
    user
      ? run("/usr/bin/setpriv", [
          `--reuid=${user.uid}`,
          `--regid=${user.gid}`,
          "--clear-groups",
          join(bin, cmd),
          ...args,
        ])
      : run(join(bin, cmd), args);
  try {
    await as("initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
    const port = await freePort();
    // Tests: no fsync (the data dies with the test). Benchmarks ask for a durable server.
    const settings = [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses=127.0.0.1",
      "-c max_connections=200",
      ...(o.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off"]),
    ].join(" ");
    await as("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-o", settings, "-w", "start"]);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    let made = 0;
    return {
      url,
      async createDatabase(name = `forge_${process.pid}_${++made}`) {
        const { default: pg } = await import("pg");
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        try {
          await c.query(`CREATE DATABASE ${name}`);
        } finally {
          await c.end();
        }
        return `postgres://postgres@127.0.0.1:${port}/${name}`;
      },
      async stop() {
        await as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
