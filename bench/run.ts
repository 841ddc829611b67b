// `npm run bench`: every benchmark, one JSON document on stdout (and in bench/results/).
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { benchAction } from "./action.js";
import { benchBox } from "./box.js";
import { benchChain } from "./chain.js";
import { benchEgress } from "./egress.js";
import { benchGuard } from "./guard.js";
import { benchJournal } from "./journal.js";
import { benchReplicas } from "./replicas.js";

const only = new Set(process.argv.slice(2));
const want = (name: string) => only.size === 0 || only.has(name);
const results: Record<string, unknown> = {
  machine: { cpus: cpus().length, node: process.version, load_average_1m: loadavg()[0] },
  at: new Date().toISOString(),
};
const benches: Array<[string, () => Promise<unknown>]> = [
  ["guard", () => benchGuard()],
  ["box", () => benchBox()],
  ["journal", () => benchJournal()],
  ["chain", () => benchChain()],
  ["egress", () => benchEgress()],
  ["action", () => benchAction()],
  ["replicas", () => benchReplicas()],
];
try {
  // Optional until the webhook bench lands; a variable specifier keeps tsc from requiring it.
  const webhooks = "./webhooks.js";
  const { benchWebhooks } = (await import(webhooks)) as {
    benchWebhooks: () => Promise<unknown>;
  };
  benches.push(["webhooks", benchWebhooks]);
} catch {
  results.webhooks = { skipped: "bench/webhooks.ts not present" };
}
for (const [name, fn] of benches) {
  if (!want(name)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  try {
    results[name] = await fn();
  } catch (error) {
    results[name] = { error: String(error) };
  }
}
const out = `${JSON.stringify(results, null, 2)}\n`;
mkdirSync(join("bench", "results"), { recursive: true });
writeFileSync(join("bench", "results", "latest.json"), out);
process.stdout.write(out);
