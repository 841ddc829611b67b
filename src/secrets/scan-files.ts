// The floor's `security` control (R8.3): a credential scan of the repository's TRACKED files.
// Runs inside the box; a symlink is never followed (it could point out of the workspace).
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { scanSecrets } from "./scan.js";

export interface FileSecretFinding {
  file: string;
  line: number;
  ruleId: string;
  message: string;
}

const MAX_FILE_BYTES = 2 * 1024 * 1024;

export async function scanFiles(
  root: string,
  files: readonly string[],
): Promise<{ findings: FileSecretFinding[]; skipped: string[] }> {
  const findings: FileSecretFinding[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    const full = join(root, file);
    const st = await lstat(full).catch(() => null);
    if (!st?.isFile()) continue;
    if (st.size > MAX_FILE_BYTES) {
      skipped.push(`${file} (over ${MAX_FILE_BYTES} bytes)`);
      continue;
    }
    const buf = await readFile(full);
    if (buf.includes(0)) continue; // binary
    const text = buf.toString("utf8");
    for (const f of await scanSecrets(text)) {
      const line = text.slice(0, f.start).split("\n").length;
      findings.push({ file, line, ruleId: f.ruleId, message: f.message });
    }
  }
  return { findings, skipped };
}
