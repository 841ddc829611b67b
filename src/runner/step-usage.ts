// What a step cost: claude's last stream-json line, `{"type":"result", "total_cost_usd", "usage"}`,
// is kept in the journal with the whole transcript (the `runner.step.transcript` event), so cost
// and tokens are read from there — or from `costUsd`/`usage` beside the stream, when the runner
// journals them itself.

export interface StepUsage {
  costUsd: number | null;
  /** Every input token: uncached, written to the cache and read from it. */
  inputTokens: number;
  /** Of those, the ones written to or read from the cache. */
  cachedTokens: number;
  outputTokens: number;
}

export interface UsageSource {
  /** The step's position in the chain. */
  index: number;
  role: string;
  attempt: number;
  usage: StepUsage;
}

/** The usage in a transcript event's data; null when it holds none. */
export function usageOfTranscript(data: Record<string, unknown>): StepUsage | null {
  const journaled = fromResult({ total_cost_usd: data.costUsd, usage: data.usage });
  if (journaled) return journaled;
  return typeof data.stream === "string" ? usageOfStream(data.stream) : null;
}

/** The usage of the last result line of a stream-json transcript. */
export function usageOfStream(stream: string): StepUsage | null {
  const lines = stream.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (!line.startsWith("{") || !line.includes('"result"')) continue;
    try {
      const obj = JSON.parse(line) as Record<string, unknown>;
      if (obj.type === "result") return fromResult(obj);
    } catch {
      // not a whole line of JSON: keep looking
    }
  }
  return null;
}

function fromResult(r: Record<string, unknown>): StepUsage | null {
  const cost = typeof r.total_cost_usd === "number" ? r.total_cost_usd : null;
  const u = r.usage && typeof r.usage === "object" ? (r.usage as Record<string, unknown>) : null;
  if (cost === null && !u) return null;
  const n = (k: string) => (u && typeof u[k] === "number" ? (u[k] as number) : 0);
  const cached = n("cache_creation_input_tokens") + n("cache_read_input_tokens");
  return {
    costUsd: cost,
    inputTokens: n("input_tokens") + cached,
    cachedTokens: cached,
    outputTokens: n("output_tokens"),
  };
}

export function addUsage(a: StepUsage | null, b: StepUsage): StepUsage {
  if (!a) return { ...b };
  return {
    costUsd: a.costUsd === null && b.costUsd === null ? null : (a.costUsd ?? 0) + (b.costUsd ?? 0),
    inputTokens: a.inputTokens + b.inputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
}

/** "$0.0123 · 11.5k in (10.3k cached), 450 out". */
export function formatUsage(u: StepUsage): string {
  const cost = u.costUsd === null ? "cost unknown" : `$${u.costUsd.toFixed(4)}`;
  const cached = u.cachedTokens > 0 ? ` (${tokens(u.cachedTokens)} cached)` : "";
  return `${cost} · ${tokens(u.inputTokens)} in${cached}, ${tokens(u.outputTokens)} out`;
}

function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}
