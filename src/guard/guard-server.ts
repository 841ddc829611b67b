// The guard as a long-lived server inside an agent's box. Starting node and loading the guard
// and tree-sitter on every tool call is most of a hook's cost; a server started with the agent
// keeps them loaded, and the hook becomes a small client (guard-client.ts) that sends its stdin
// and prints the answer.
//
// Why this is as strong as the guard in the hook process:
// - it runs the same runGuard with the same dependencies, in the same box (same mount
//   namespace, so the same files, symlinks and globs as the agent and the hook see);
// - it listens on a socket the RUNNER bound on the host and handed over as an inherited fd; the
//   box sees the socket's directory read-only, so the agent cannot remove it or bind its own in
//   its place. If the agent kills the server, the socket refuses connections and every hook
//   decides in its own process (guard-client.ts) — slower, same decisions;
// - the client accepts only an answer shaped like a guard decision (guard-protocol.ts).
// Each request carries the hook's own stdin and its CLAUDE_PROJECT_DIR and HOME; nothing is
// cached between requests but the parser.
import { createServer, type Server, type Socket } from "node:net";
import type { GuardDeps } from "./decide.js";
import { type GuardAnswer, MAX_MESSAGE_BYTES, parseRequest } from "./guard-protocol.js";
import { runGuard } from "./hook-io.js";

/** A connection that has not sent its whole request by then is dropped. */
const REQUEST_TIMEOUT_MS = 5_000;

export function createGuardServer(
  deps: GuardDeps,
  env: Readonly<Record<string, string | undefined>>,
): Server {
  // allowHalfOpen: the client half-closes after its request; the answer still goes back.
  return createServer({ allowHalfOpen: true }, (socket) => void answer(socket, deps, env));
}

async function answer(
  socket: Socket,
  deps: GuardDeps,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
  socket.on("error", () => socket.destroy());
  try {
    const request = parseRequest(await readRequest(socket));
    if (!request) {
      socket.destroy(); // not a request: the client (if it is one) decides itself
      return;
    }
    let stdout = "";
    let stderr = "";
    const code = await runGuard(
      request.argv,
      {
        readStdin: async () => request.stdin,
        writeStdout: async (text) => {
          stdout += text;
        },
        writeStderr: (text) => {
          stderr += text;
        },
        env,
      },
      { ...deps, env: request.env },
    );
    const reply: GuardAnswer = { v: 1, code, stdout, stderr };
    socket.end(JSON.stringify(reply));
  } catch {
    socket.destroy();
  }
}

/**
 * The request bytes up to the client's half-close. Events, not `for await`: async iteration
 * destroys the socket when it ends, and the answer still has to go back on it.
 */
function readRequest(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_MESSAGE_BYTES) reject(new Error("request too large"));
      else chunks.push(chunk);
    });
    socket.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.once("close", () => reject(new Error("closed before the request was complete")));
  });
}
