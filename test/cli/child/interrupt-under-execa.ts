// Child for interrupt.test.ts: handles SIGINT with `mode` ("helper" or "once") while an execa
// subprocess runs (execa's signal-exit listener is then installed), signals itself twice and
// reports whether it survived to the end of the body.
import { execa } from "execa";
import { whileHandlingSignals } from "../../../src/cli/interrupt.js";

const mode = process.argv[2];
const seen: number[] = [];
const body = async () => {
  const sub = execa("sleep", ["5"], { reject: false });
  await new Promise((r) => setTimeout(r, 300)); // the subprocess (and its listener) is up
  process.kill(process.pid, "SIGINT");
  await new Promise((r) => setTimeout(r, 300));
  process.kill(process.pid, "SIGINT");
  await new Promise((r) => setTimeout(r, 300));
  sub.kill("SIGKILL");
  await sub;
};
if (mode === "once") {
  process.once("SIGINT", () => seen.push(1));
  await body();
} else {
  await whileHandlingSignals(["SIGINT"], (_s, count) => seen.push(count), body);
}
process.stdout.write(`survived ${JSON.stringify(seen)}\n`);
