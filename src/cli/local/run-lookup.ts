// A run named on the command line by its id or a unique prefix of it.
import type { JournalStore } from "../../chain/ports.js";
import type { RunRecord } from "../../chain/types.js";
import { UsageError } from "../usage-error.js";

export async function findRun(store: JournalStore, idOrPrefix: string): Promise<RunRecord> {
  const exact = await store.getRun(idOrPrefix);
  if (exact) return exact;
  const matches = (await store.listRuns()).filter((r) => r.id.startsWith(idOrPrefix));
  if (matches.length === 1) return matches[0] as RunRecord;
  throw new UsageError(
    matches.length === 0
      ? `no run ${idOrPrefix} in the journal (\`forge status\` lists them)`
      : `run id prefix ${idOrPrefix} is ambiguous (${matches.length} runs)`,
  );
}
