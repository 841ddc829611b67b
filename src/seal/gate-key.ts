/**
 * The gate key (R6.4): FORGE_GATE_SECRET when set, else `<dir>/gate.key`, created with mode
 * 0600 on first use. The key never enters a box: callers pass it to the sealer only.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import { MIN_KEY_BYTES } from "./sealer.js";

export class GateKeyError extends Error {
  override name = "GateKeyError";
}

export interface GateKey {
  key: Buffer;
  source: "env" | "file";
  /** The key file, when the key came from one. */
  path?: string;
}

export const GATE_KEY_FILE = "gate.key";

export async function loadGateKey(options: {
  env: Readonly<Record<string, string | undefined>>;
  dir: string;
}): Promise<GateKey> {
  const secret = options.env.FORGE_GATE_SECRET;
  if (secret !== undefined && secret !== "") {
    const key = Buffer.from(secret, "utf8");
    if (key.length < MIN_KEY_BYTES) {
      throw new GateKeyError(
        `FORGE_GATE_SECRET is ${key.length} bytes; it must be at least ${MIN_KEY_BYTES} bytes ` +
          `(e.g. the output of: openssl rand -hex 32). Unset it to use ${GATE_KEY_FILE} instead.`,
      );
    }
    return { key, source: "env" };
  }
  const path = join(options.dir, GATE_KEY_FILE);
  const existing = await readKeyFile(path);
  if (existing) return { key: existing, source: "file", path };
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(MIN_KEY_BYTES);
  try {
    // O_EXCL: two processes starting at once never both write a key; the loser reads the
    // winner's. O_NOFOLLOW: a planted symlink is not written through.
    const handle = await open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      await handle.chmod(0o600); // the umask can only narrow 0600, but make it explicit
      await handle.writeFile(key);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      const raced = await readKeyFile(path);
      if (raced) return { key: raced, source: "file", path };
    }
    throw new GateKeyError(`cannot create ${path}: ${(error as Error).message}`);
  }
  return { key, source: "file", path };
}

async function readKeyFile(path: string): Promise<Buffer | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NOFOLLOW and fstat on the open handle: the file checked is the file read.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") {
      throw new GateKeyError(`${path} is a symlink; a gate key must be a regular file`);
    }
    throw new GateKeyError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new GateKeyError(`${path} is not a regular file; remove it`);
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(3, "0");
      throw new GateKeyError(
        `${path} has mode ${mode}: group or others may read the gate key, so any of them ` +
          `could seal answers. Run: chmod 600 ${path} (and consider replacing the key).`,
      );
    }
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) {
      throw new GateKeyError(`${path} is owned by uid ${stat.uid}, not by this process (${uid})`);
    }
    const key = await handle.readFile();
    if (key.length < MIN_KEY_BYTES) {
      throw new GateKeyError(
        `${path} holds ${key.length} bytes; a gate key must be at least ${MIN_KEY_BYTES} bytes`,
      );
    }
    return key;
  } finally {
    await handle.close();
  }
}
