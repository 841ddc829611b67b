// `forge scan-secrets` as its own small bundle: it runs as a control in every builder box, so
// it does not load the whole CLI. Exit 2 on bad usage or an error (never a silent pass).
import { scanSecretsMain } from "./scan-secrets-main.js";

const args = process.argv.slice(3);
let dir = ".";
if (args[0] === "--dir" && args[1]) dir = args[1];
else if (args.length > 0) {
  process.stderr.write("usage: forge scan-secrets [--dir <path>]\n");
  process.exit(2);
}
try {
  process.exitCode = await scanSecretsMain(dir, process.stdout);
} catch (error) {
  process.stderr.write(
    `forge scan-secrets: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 2;
}
