// The hook's side of the in-box guard server (guard-server.ts): send the request, wait for an
// answer that is shaped like a guard decision. Any failure — no socket, refused, a timeout, a
// broken or unexpected answer — resolves to null, and the caller decides in its own process.
import { connect } from "node:net";
import {
  type GuardAnswer,
  type GuardRequest,
  MAX_MESSAGE_BYTES,
  parseAnswer,
} from "./guard-protocol.js";

export function askGuardServer(
  socketPath: string,
  request: GuardRequest,
  timeoutMs: number,
): Promise<GuardAnswer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (answer: GuardAnswer | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const socket = connect(socketPath);
    const timer = setTimeout(() => finish(null), timeoutMs);
    socket.on("error", () => finish(null));
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_MESSAGE_BYTES) return finish(null);
      chunks.push(chunk);
    });
    socket.on("end", () => finish(parseAnswer(Buffer.concat(chunks).toString("utf8"))));
    socket.end(JSON.stringify(request));
  });
}
