// The host side of the in-box guard server (src/guard/guard-server.ts): the runner binds the
// listening socket in a step directory of its own, hands the descriptor to the box, and closes
// its copy once the box has it. The box sees the directory read-only, so the agent can neither
// remove the socket nor bind another in its place.
import { chmodSync, chownSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import type { BoxUser } from "../boxes/box-user.js";

export interface GuardSocket {
  /** The socket's path (host and box: the directory is bound at the same path). */
  readonly path: string;
  /** The directory to bind read-only into the box. */
  readonly dir: string;
  /** The listening descriptor to pass to the box as an extra stdio entry. */
  readonly fd: number;
  /** Closes the runner's copy (call once the box process is spawned). */
  close(): void;
  /** Removes the directory (after the box has ended). */
  remove(): void;
}

/** sun_path is 108 bytes on Linux; a longer path would be silently cut short by the bind. */
const MAX_SOCKET_PATH = 100;

/**
 * Binds `<new dir under parent>/guard.sock` and listens, or returns null when the path would
 * be too long for a unix socket or this platform gives no descriptor (the hooks then decide in
 * their own processes). The directory is new and short (a step directory under FORGE_HOME can
 * exceed sun_path). Node's server is used only to bind and listen; it never accepts: the box
 * starts after this returns, and the runner closes its copy right after spawning.
 *
 * With a switched box `user`, the hooks in the box run as that user and must connect (connect(2)
 * needs write permission on the socket and search on its directory): the directory (0700) and
 * the socket (0600) are given to the box user and opened to nobody else. Other boxes run as the
 * same uid but never see the directory: it is bound into this box alone, and a box's /tmp is
 * its own.
 */
export async function openGuardSocket(
  parent = "/tmp",
  user?: BoxUser,
): Promise<GuardSocket | null> {
  const dir = mkdtempSync(join(parent, "forge-g-")); // mode 0700
  const path = join(dir, "guard.sock");
  const remove = () => rmSync(dir, { recursive: true, force: true });
  if (join(dir, ".binding.sock").length > MAX_SOCKET_PATH) {
    remove();
    return null;
  }
  // libuv unlinks a unix socket's path when the server closes. Listen on a temporary name and
  // rename: the close then unlinks a name that is already gone, and guard.sock stays for the
  // box (whose server holds the descriptor).
  const staging = join(dir, ".binding.sock");
  const server: Server = createServer((c) => c.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(staging, () => resolve());
  });
  renameSync(staging, path);
  chmodSync(path, 0o600);
  if (user?.switched) {
    chownSync(path, user.uid, user.gid);
    chownSync(dir, user.uid, user.gid);
  }
  // Node exposes a listening socket's descriptor only on its handle (stable for many majors;
  // checked here, and without it there is simply no server).
  const fd = (server as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0) {
    server.close();
    remove();
    return null;
  }
  return { path, dir, fd, close: () => server.close(), remove };
}

/**
 * The agent command, started through /bin/sh so that the guard server starts beside it in the
 * same box: `<node> <guard-server.cjs> 3` in the background (its output to /dev/null: the
 * agent's stdout is the transcript), then `exec` the agent with descriptor 3 CLOSED — the
 * agent and every command it runs must never hold the listening socket (they could accept the
 * hooks' connections and answer for the guard).
 */
export function commandWithGuardServer(
  command: string,
  args: readonly string[],
  opts: { node: string; installRoot: string },
): { command: string; args: string[] } {
  const script = '"$1" "$2" 3 </dev/null >/dev/null 2>&1 & shift 2; exec "$@" 3<&-';
  const server = join(opts.installRoot, "dist", "guard-server.cjs");
  return {
    command: "/bin/sh",
    args: ["-c", script, "forge-box", opts.node, server, command, ...args],
  };
}
