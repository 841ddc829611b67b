// Before a run: does the model endpoint answer at all? With it down, claude retries for
// minutes while the terminal shows "architect running" (measured: ten retries, delays doubling
// to ~40 s). One HTTP request here turns that into an error that names the setting.
import type { ProviderName } from "../../providers/types.js";

export const DEFAULT_ANTHROPIC_URL = "https://api.anthropic.com";

export type EndpointCheck =
  | { ok: true; url: string; note?: string }
  | { ok: false; url: string; message: string };

/**
 * Any HTTP answer (even 401 or 404) means the endpoint is there; no answer within `timeoutMs`
 * — refused, unknown host, a server that never replies — means a run would only wait.
 */
export async function checkModelEndpoint(
  provider: ProviderName,
  env: Record<string, string | undefined>,
  timeoutMs = 5000,
): Promise<EndpointCheck> {
  if (provider !== "claude") return { ok: true, url: "", note: "not checked for this provider" };
  const raw = env.ANTHROPIC_BASE_URL?.trim() || DEFAULT_ANTHROPIC_URL;
  const named = env.ANTHROPIC_BASE_URL?.trim()
    ? `ANTHROPIC_BASE_URL=${raw}`
    : `${raw} (ANTHROPIC_BASE_URL is not set)`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return {
      ok: false,
      url: raw,
      message: `${named} is not a URL; set ANTHROPIC_BASE_URL to the model endpoint's address (http:// or https://), or unset it for ${DEFAULT_ANTHROPIC_URL}`,
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, url: raw, message: `${named}: only http:// and https:// endpoints work` };
  }
  // Node's fetch does not go through HTTPS_PROXY; claude does. Behind a proxy this check
  // would fail where the run works, so it steps aside and says so.
  if (proxyFor(url, env)) {
    return { ok: true, url: raw, note: "not checked: a proxy is set (HTTPS_PROXY/HTTP_PROXY)" };
  }
  try {
    const res = await fetch(url, {
      method: "HEAD",
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return { ok: true, url: raw };
  } catch (error) {
    return {
      ok: false,
      url: raw,
      message:
        `the model endpoint does not answer: ${named} (${why(error, timeoutMs)}). ` +
        "Start the endpoint or point ANTHROPIC_BASE_URL at one that runs (unset, it is " +
        `${DEFAULT_ANTHROPIC_URL}); nothing ran`,
    };
  }
}

function why(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  const code = e?.cause?.code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "unknown host";
  return e?.cause?.message ?? (error instanceof Error ? error.message : String(error));
}

function proxyFor(url: URL, env: Record<string, string | undefined>): boolean {
  const proxy =
    url.protocol === "https:"
      ? (env.HTTPS_PROXY ?? env.https_proxy ?? env.ALL_PROXY ?? env.all_proxy)
      : (env.HTTP_PROXY ?? env.http_proxy ?? env.ALL_PROXY ?? env.all_proxy);
  if (!proxy) return false;
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? "")
    .split(",")
    .map((s) => s.trim().replace(/^\*?\./, ""))
    .filter(Boolean);
  const host = url.hostname;
  return !noProxy.some((n) => n === "*" || host === n || host.endsWith(`.${n}`));
}
