import { execFile } from "node:child_process";

/**
 * Reading `scripts/verify.sh` out of the base commit (R2.6). The builder controls the working
 * tree, the index and every branch name, so the script is taken from an exact commit id and
 * never from a path on disk.
 */

export const VERIFY_PATH = "scripts/verify.sh";

/** Largest verify.sh we accept; a bigger blob is refused rather than truncated. */
const MAX_SCRIPT_BYTES = 1024 * 1024;

/** A full SHA-1 or SHA-256 object id, lower case. */
const FULL_OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The base could not be read: the caller must treat this as a verify FAILURE (fail closed). */
export class VerifyBaseError extends Error {
  override readonly name = "VerifyBaseError";
}

export type BaseScript = {
  /** The resolved commit id of the base. */
  baseSha: string;
  /** The script text from the base commit, or null when the base has no scripts/verify.sh. */
  script: string | null;
};

/**
 * Only a full commit id is accepted as base: a branch or tag name can be moved by the builder
 * (`git branch -f main HEAD` is an allowed builder command), which would let it choose which
 * verify.sh runs.
 */
export function isFullObjectId(ref: string): boolean {
  return FULL_OBJECT_ID.test(ref);
}

/**
 * git with repo hooks off, replace objects off and every GIT_* variable dropped: GIT_DIR,
 * GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES and friends would let the environment
 * point the read at another repository; `refs/replace/` would let the repository itself swap
 * the base's blob for another one.
 */
function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith("GIT_")) clean[key] = value;
  }
  clean.GIT_NO_REPLACE_OBJECTS = "1";
  clean.GIT_TERMINAL_PROMPT = "0";
  return clean;
}

function git(
  repoDir: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ok: boolean; stdout: Buffer; stderr: string }> {
  const argv = [
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "--no-replace-objects",
    "-C",
    repoDir,
    ...args,
  ];
  return new Promise((resolve) => {
    execFile(
      "git",
      argv,
      { env: gitEnv(env), encoding: "buffer", maxBuffer: 2 * MAX_SCRIPT_BYTES, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ ok: error === null, stdout, stderr: stderr.toString("utf8").trim() });
      },
    );
  });
}

/** Resolve `baseRef` to its commit and read scripts/verify.sh from that commit's tree. */
export async function readVerifyScriptFromBase(options: {
  repoDir: string;
  baseRef: string;
  env?: NodeJS.ProcessEnv;
}): Promise<BaseScript> {
  const { repoDir, baseRef } = options;
  const env = options.env ?? process.env;
  if (!isFullObjectId(baseRef)) {
    throw new VerifyBaseError(
      `base ref ${JSON.stringify(baseRef.slice(0, 80))} is not a full commit id; ` +
        "a branch or tag name could be moved by the builder",
    );
  }
  const resolved = await git(
    repoDir,
    ["rev-parse", "--verify", "--quiet", "--end-of-options", `${baseRef}^{commit}`],
    env,
  );
  const baseSha = resolved.stdout.toString("utf8").trim();
  if (!resolved.ok || !isFullObjectId(baseSha)) {
    throw new VerifyBaseError(
      `base ${baseRef} is not a commit in ${repoDir}${resolved.stderr ? `: ${resolved.stderr}` : ""}`,
    );
  }

  const listed = await git(
    repoDir,
    ["ls-tree", "-z", "--full-tree", baseSha, "--", VERIFY_PATH],
    env,
  );
  if (!listed.ok) {
    throw new VerifyBaseError(`cannot list ${VERIFY_PATH} at base ${baseSha}: ${listed.stderr}`);
  }
  const entry = listed.stdout.toString("utf8").split("\0")[0] ?? "";
  if (entry === "") return { baseSha, script: null };

  // "<mode> <type> <oid>\t<path>"
  const match = /^(\d{6}) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(entry);
  if (!match || match[4] !== VERIFY_PATH) {
    throw new VerifyBaseError(`unexpected ls-tree output for ${VERIFY_PATH} at base ${baseSha}`);
  }
  const [, mode, type, oid] = match;
  // A symlink blob holds a path, a gitlink is another repository: neither is a script we can
  // run as written, and guessing would be an opening — refuse (the step fails, a human looks).
  if (type !== "blob" || (mode !== "100644" && mode !== "100755")) {
    throw new VerifyBaseError(
      `${VERIFY_PATH} at base ${baseSha} is not a regular file (mode ${mode}, ${type}); refusing to run it`,
    );
  }
  const blob = await git(repoDir, ["cat-file", "blob", oid ?? ""], env);
  if (!blob.ok) {
    throw new VerifyBaseError(`cannot read ${VERIFY_PATH} at base ${baseSha}: ${blob.stderr}`);
  }
  if (blob.stdout.length > MAX_SCRIPT_BYTES) {
    throw new VerifyBaseError(
      `${VERIFY_PATH} at base ${baseSha} is larger than ${MAX_SCRIPT_BYTES} bytes`,
    );
  }
  return { baseSha, script: blob.stdout.toString("utf8") };
}
