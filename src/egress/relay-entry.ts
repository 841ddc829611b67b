// `node dist/egress-relay.cjs <port> <socket> [ready-fd]`: the in-box relay (relay.ts). Once it
// listens it writes "ready" to ready-fd and closes it; that is what withRelay waits for before
// it starts the box's command, so the command's first connection never races the relay.
import { closeSync, writeSync } from "node:fs";
import { startRelay } from "./relay.js";

const [portText = "", socketPath = "", fdText] = process.argv.slice(2);
const readyFd = fdText === undefined ? undefined : Number(fdText);

function report(line: string): void {
  if (readyFd === undefined) return;
  try {
    writeSync(readyFd, `${line}\n`);
    closeSync(readyFd);
  } catch {
    // Nobody waits: nothing to tell.
  }
}

const port = Number(portText);
if (!Number.isInteger(port) || port < 1 || port > 65535 || socketPath === "") {
  report("usage: egress-relay <port> <socket> [ready-fd]");
  process.exit(2);
}
startRelay({ port, socketPath }).then(
  () => report("ready"),
  (error: Error) => {
    report(`error ${error.message}`);
    process.exit(1);
  },
);
