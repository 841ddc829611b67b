// The built-in `forge:secret-scan` control (R8.3) as the runner runs it after the builder: a
// credential scan of every regular file in the committed tree (HEAD, which by then holds all of
// the builder's work, see builder-checks.ts). It reads git objects, not the file system, so a
// symlink is a blob holding a path and nothing is followed out of the workspace; no process of
// the builder's runs. Measured, this replaced a node process in a box (≈ 0.15 s of CPU and the
// longest wait of the builder's after-phase) with two git processes and a warm scanner.
// `forge scan-secrets` (the same control by hand, or in a box proof) scans the working tree.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { scanSecrets } from "../secrets/index.js";
import { git, gitBytes } from "./git.js";

/** Same limit as `forge scan-secrets`: a bigger file is named as skipped, never cut. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Objects read per `git cat-file --batch`, by size: the output is held in memory. */
const MAX_BATCH_BYTES = 32 * 1024 * 1024;

export interface TreeScanResult {
  exitCode: 0 | 1;
  /** Lines in the format of `forge scan-secrets`. */
  output: string;
}

interface Entry {
  path: string;
  oid: string;
  size: number;
}

/**
 * Scans the regular files of a committed tree: HEAD under `dir` (a directory of a work tree;
 * paths relative to it, as `git ls-files` gives them there), or, with `commit`, that commit of
 * the repository `dir` (bare or not) below `subdir`. Exit 1 when a file holds a secret. Throws
 * GitError when the tree cannot be read: the caller reports the control as failed.
 */
export async function scanCommittedTree(
  dir: string,
  opts: { batchBytes?: number; commit?: string; subdir?: string } = {},
): Promise<TreeScanResult> {
  const sub = (opts.subdir ?? "").replace(/^\.\/?|\/+$/g, "");
  const treeish = opts.commit ? (sub ? `${opts.commit}:${sub}` : opts.commit) : "HEAD";
  // -l: sizes, so big files are skipped unread; from `dir`, ls-tree lists only its subtree.
  const listed = await git(["ls-tree", "-r", "-z", "-l", treeish], { cwd: dir });
  let tracked = 0;
  const files: Entry[] = [];
  const skipped: string[] = [];
  for (const record of listed.stdout.split("\0")) {
    if (!record) continue;
    tracked++;
    const m = /^(\d{6}) (\w+) ([0-9a-f]+) +(\d+|-)\t(.*)$/s.exec(record);
    if (!m) throw new Error(`unexpected git ls-tree output: ${record.slice(0, 120)}`);
    const [, mode, type, oid, size, path] = m as unknown as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    // Regular files only: a symlink's blob is a path, a gitlink another repository.
    if (type !== "blob" || (mode !== "100644" && mode !== "100755")) continue;
    if (Number(size) > MAX_FILE_BYTES) {
      skipped.push(`${path} (over ${MAX_FILE_BYTES} bytes)`);
      continue;
    }
    files.push({ path, oid, size: Number(size) });
  }
  const lines: string[] = [];
  let found = 0;
  for (const batch of batches(files, opts.batchBytes ?? MAX_BATCH_BYTES)) {
    const contents = await readBlobs(dir, batch);
    for (const [i, file] of batch.entries()) {
      const buf = contents[i];
      if (!buf || buf.includes(0)) continue; // binary
      const text = buf.toString("utf8");
      for (const f of await scanSecrets(text)) {
        const line = text.slice(0, f.start).split("\n").length;
        lines.push(`${file.path}:${line}: ${f.ruleId}: ${f.message}`);
        found++;
      }
      // Many files must not hold the runner's event loop (the App serves webhooks on it).
      await yieldToLoop();
    }
  }
  for (const s of skipped) lines.push(`skipped ${s}`);
  lines.push(`${tracked} tracked files scanned, ${found} secret(s) found`);
  return { exitCode: found > 0 ? 1 : 0, output: `${lines.join("\n")}\n` };
}

function* batches(files: Entry[], limit: number): Generator<Entry[]> {
  let batch: Entry[] = [];
  let bytes = 0;
  for (const f of files) {
    if (batch.length > 0 && bytes + f.size > limit) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(f);
    bytes += f.size;
  }
  if (batch.length > 0) yield batch;
}

/** The contents of `entries`' blobs, in order, from one `git cat-file --batch`. */
async function readBlobs(dir: string, entries: Entry[]): Promise<Buffer[]> {
  const out = await gitBytes(["cat-file", "--batch"], {
    cwd: dir,
    input: `${entries.map((e) => e.oid).join("\n")}\n`,
  });
  const blobs: Buffer[] = [];
  let pos = 0;
  for (const entry of entries) {
    // "<oid> <type> <size>\n<content>\n" per object.
    const nl = out.indexOf(0x0a, pos);
    const header = nl >= 0 ? out.subarray(pos, nl).toString("utf8") : "";
    const m = /^([0-9a-f]+) (\w+) (\d+)$/.exec(header);
    if (!m || m[1] !== entry.oid || m[2] !== "blob") {
      throw new Error(`unexpected git cat-file output for ${entry.path}: ${header.slice(0, 120)}`);
    }
    const start = nl + 1;
    const end = start + Number(m[3]);
    if (end > out.length) throw new Error(`git cat-file output ends inside ${entry.path}`);
    blobs.push(out.subarray(start, end));
    pos = end + 1;
  }
  return blobs;
}
