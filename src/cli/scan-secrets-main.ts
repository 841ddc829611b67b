import { execFileSync } from "node:child_process";
import { scanFiles } from "../secrets/scan-files.js";

/** The built-in `forge:secret-scan` control: exit code 1 when a tracked file holds a secret. */
export async function scanSecretsMain(
  dir: string,
  out: { write(s: string): unknown },
): Promise<number> {
  const listed = execFileSync("git", ["-c", "core.hooksPath=/dev/null", "ls-files", "-z"], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = listed.split("\0").filter(Boolean);
  const { findings, skipped } = await scanFiles(dir, files);
  for (const f of findings) out.write(`${f.file}:${f.line}: ${f.ruleId}: ${f.message}\n`);
  for (const s of skipped) out.write(`skipped ${s}\n`);
  out.write(`${files.length} tracked files scanned, ${findings.length} secret(s) found\n`);
  return findings.length > 0 ? 1 : 0;
}
