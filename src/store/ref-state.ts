// State kept in a repository itself, under a ref of its own (`refs/forge/...`): for the packaged
// Action, whose runner starts each workflow run with nothing on disk, the journal of a paused run
// has to live where the next workflow run finds it. A snapshot is one commit whose tree holds a
// few files (the journal's SQLite file among them), its parent the snapshot it replaced — an
// audit trail of who wrote what.
//
// Reads are a fetch. A write is a push that lands only if the ref is still where the writer read
// it (compare-and-swap: `--force-with-lease=<ref>:<expected>`, an empty expectation meaning "does
// not exist yet"), so two workflow runs acting on the same issue never both win: the loser gets
// RefStateConflict and re-reads or refuses — never a blind merge. All git here runs in a scratch
// repository of the caller's (never a checkout a box or a workflow step wrote), through the
// runner's git (no system or global config, no hooks).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { git, gitBytes, gitLine } from "../runner/git.js";

/** Another writer moved the ref since it was read: re-read, then retry or refuse. */
export class RefStateConflict extends Error {
  override readonly name = "RefStateConflict";
}

/** A ref, file name or snapshot forgechain will not read or write. */
export class RefStateError extends Error {
  override readonly name = "RefStateError";
}

export interface RefSnapshot {
  /** The snapshot's commit; null when the ref does not exist yet. */
  oid: string | null;
  files: Map<string, Buffer>;
}

export interface RefStateTarget {
  /** The repository: a URL or a path (credentials travel in `env`, never in it). */
  remote: string;
  /** Under refs/forge/. */
  ref: string;
  /** A bare repository of the caller's for the objects (made when missing). */
  scratch: string;
  /** git's environment for the remote (e.g. the token as http.extraHeader, GIT_CONFIG_*). */
  env?: Record<string, string>;
}

/** The whole snapshot's size limit: the state of one issue's runs, not a data store. */
export const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** Where a read lands in the scratch repository: one per ref, so reads of two refs never mix. */
const fetchedRef = (ref: string) => `refs/forge-state/fetched/${ref.slice("refs/forge/".length)}`;

export async function readRefState(t: RefStateTarget): Promise<RefSnapshot> {
  await checkTarget(t);
  const local = fetchedRef(t.ref);
  const fetched = await git(["fetch", "--quiet", "--no-tags", t.remote, `+${t.ref}:${local}`], {
    cwd: t.scratch,
    ...(t.env ? { env: t.env } : {}),
    allowFailure: true,
  });
  if (fetched.exitCode !== 0) {
    // A ref that does not exist is the one failure that is an answer.
    if (/couldn't find remote ref/i.test(fetched.stderr)) return { oid: null, files: new Map() };
    throw new RefStateError(`reading ${t.ref}: ${fetched.stderr.trim().slice(0, 500)}`);
  }
  const oid = await gitLine(["rev-parse", "--verify", `${local}^{commit}`], { cwd: t.scratch });
  const tree = await gitLine(["ls-tree", "-z", "--long", oid], { cwd: t.scratch }).then((s) =>
    s.split("\0").filter(Boolean),
  );
  const files = new Map<string, Buffer>();
  let total = 0;
  for (const line of tree) {
    const m = /^100644 blob ([0-9a-f]{40,64})\s+(\d+)\t(.+)$/.exec(line);
    if (!m || !FILE_NAME.test(m[3] ?? "")) {
      throw new RefStateError(
        `${t.ref} holds something forgechain did not write: ${line.slice(0, 200)}`,
      );
    }
    total += Number(m[2]);
    if (total > MAX_SNAPSHOT_BYTES)
      throw new RefStateError(`${t.ref} is larger than ${MAX_SNAPSHOT_BYTES} bytes`);
    files.set(
      m[3] as string,
      await gitBytes(["cat-file", "blob", m[1] as string], { cwd: t.scratch }),
    );
  }
  return { oid, files };
}

/**
 * Writes `files` as the ref's new snapshot if the ref is still at `expected` (null: absent).
 * Returns the new commit. Throws RefStateConflict when another writer got there first.
 */
export async function writeRefState(
  t: RefStateTarget,
  expected: string | null,
  files: ReadonlyMap<string, Buffer>,
  message: string,
): Promise<string> {
  await checkTarget(t);
  let total = 0;
  for (const [name, bytes] of files) {
    if (!FILE_NAME.test(name))
      throw new RefStateError(`not a state file name: ${JSON.stringify(name)}`);
    total += bytes.length;
  }
  if (total > MAX_SNAPSHOT_BYTES)
    throw new RefStateError(`a snapshot larger than ${MAX_SNAPSHOT_BYTES} bytes`);
  if (expected !== null && !/^[0-9a-f]{40,64}$/.test(expected)) {
    throw new RefStateError(`not a commit id: ${expected.slice(0, 80)}`);
  }
  const tree = await writeTree(t.scratch, files);
  const commit = await gitLine(
    ["commit-tree", tree, ...(expected ? ["-p", expected] : []), "-m", message],
    { cwd: t.scratch },
  );
  const pushed = await git(
    [
      "push",
      "--porcelain",
      `--force-with-lease=${t.ref}:${expected ?? ""}`,
      t.remote,
      `${commit}:${t.ref}`,
    ],
    { cwd: t.scratch, ...(t.env ? { env: t.env } : {}), allowFailure: true },
  );
  if (pushed.exitCode === 0) return commit;
  const said = `${pushed.stdout}\n${pushed.stderr}`;
  // The lease failed on our side (stale info), or the remote's own compare-and-swap on the ref
  // failed because another push updated it between (failed to update / cannot lock ref).
  if (
    /stale info|fetch first|non-fast-forward|\[rejected\]|failed to update ref|cannot lock ref|incorrect old value/i.test(
      said,
    )
  ) {
    throw new RefStateConflict(`${t.ref} moved since it was read: another writer acted first`);
  }
  throw new RefStateError(`writing ${t.ref}: ${said.trim().slice(0, 500)}`);
}

async function writeTree(scratch: string, files: ReadonlyMap<string, Buffer>): Promise<string> {
  const dir = await mkdtemp(join(scratch, "forge-state-"));
  try {
    const lines: string[] = [];
    for (const [name, bytes] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const file = join(dir, "blob");
      await writeFile(file, bytes);
      const oid = await gitLine(["hash-object", "-w", "--", file], { cwd: scratch });
      lines.push(`100644 blob ${oid}\t${name}`);
    }
    return await gitLine(["mktree", "-z"], {
      cwd: scratch,
      input: lines.map((l) => `${l}\0`).join(""),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function checkTarget(t: RefStateTarget): Promise<void> {
  if (!t.ref.startsWith("refs/forge/")) throw new RefStateError(`not a forgechain ref: ${t.ref}`);
  const ok = await git(["check-ref-format", t.ref], { cwd: "/", allowFailure: true });
  if (ok.exitCode !== 0) throw new RefStateError(`not a valid ref name: ${t.ref}`);
  await mkdir(t.scratch, { recursive: true, mode: 0o700 });
  const bare = await git(["rev-parse", "--is-bare-repository"], {
    cwd: t.scratch,
    allowFailure: true,
  });
  if (bare.stdout.trim() !== "true")
    await git(["init", "--quiet", "--bare", t.scratch], { cwd: "/" });
}
