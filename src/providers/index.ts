import { claudeProvider } from "./claude.js";
import { codexProvider } from "./codex.js";
import type { Provider, ProviderName } from "./types.js";

export { claudeProvider, parseClaudeResult, resolveClaudeBinary } from "./claude.js";
export { CODEX_FLAGS, codexProvider, parseCodexResult } from "./codex.js";
export { ProviderConfigError } from "./errors.js";
export {
  applyReadOnly,
  CLAUDE_READ_ONLY_DENY,
  readOnlyPromptSentences,
} from "./read-only-flags.js";
export type * from "./types.js";

export function createProvider(name: ProviderName, opts: { binary?: string } = {}): Provider {
  return name === "claude" ? claudeProvider(opts) : codexProvider(opts);
}
