// Credential files of common tools whose name alone says nothing (`config.json`, `config`,
// `hosts.yml`, `credentials`): they are secret only under their tool's directory, so these
// rules look at a segment's neighbours. Whole directories that hold nothing but credentials
// and token caches (`.aws/`, `.azure/`, `.kube/`, `.codex/`) are plain segment rules in
// secret-paths.ts.
//
// A directory whose other files are harmless and often committed (`.docker/` holding
// Dockerfiles) is closed in two ways: the path tools, which name the exact file, are refused
// only its credential file (or the directory itself as a search root); Bash is refused the
// directory as soon as a word names it, because `cd ~/.docker && cat config.json` reaches the
// file through a name no rule can recognise.
import type { SecretRuleName, SegmentContext } from "./secret-paths.js";

/**
 * One segment of a path or pattern as these rules see it: a literal name (lower case), a
 * pattern with a literal part that could match several names, or a bare wildcard (`*`,
 * `$X`). Like the other rules, a bare wildcard does not count as naming a tool's directory
 * or file — but below a named directory it reaches every file in it.
 */
export type CredentialSegment =
  | { readonly lit: string }
  | { readonly re: RegExp }
  | { readonly wild: true };

/** Could this segment name `name`? A bare wildcard names nothing. */
function can(seg: CredentialSegment | undefined, name: string): boolean {
  if (!seg || "wild" in seg) return false;
  return "lit" in seg ? seg.lit === name : seg.re.test(name);
}

/** Does this segment reach `name` (a bare wildcard reaches everything)? */
function reaches(seg: CredentialSegment | undefined, name: string): boolean {
  return seg !== undefined && ("wild" in seg || can(seg, name));
}

/** Tool directories under `.config/` and what they hold. */
const CONFIG_DIRS: readonly { dir: string; rule: SecretRuleName; whole: boolean }[] = [
  // gcloud keeps credentials.db, access_tokens.db and legacy_credentials/ side by side.
  { dir: "gcloud", rule: "gcloud", whole: true },
  { dir: "gh", rule: "gh-hosts", whole: false },
  { dir: "git", rule: "git-credentials", whole: false },
];

/** Credential files known by their directory's name (and that directory's parent). */
const DIR_FILES: readonly { parent?: string; dir: string; file: string; rule: SecretRuleName }[] = [
  { dir: ".docker", file: "config.json", rule: "docker-config" },
  { parent: ".config", dir: "gh", file: "hosts.yml", rule: "gh-hosts" },
  { parent: ".config", dir: "git", file: "credentials", rule: "git-credentials" },
];

/**
 * The credential rule segment `i` of `segs` matches given its neighbours, or null. `ctx` is
 * the segment's context (mode, last, whether the word names the directory itself).
 */
export function credentialRule(
  segs: readonly CredentialSegment[],
  i: number,
  ctx: SegmentContext,
): SecretRuleName | null {
  const cur = segs[i];
  const prev = segs[i - 1];
  const next = segs[i + 1];
  // Is the directory's content reachable through this word? In Bash, any word naming the
  // directory (a `cd` target, a search root, a path below it); for the path tools, only the
  // directory itself as a search root (they name exact files otherwise).
  const reached =
    ctx.mode === "bash" ? !ctx.last || ctx.namesDirItself : ctx.last && ctx.namesDirItself;
  for (const { parent, dir, file, rule } of DIR_FILES) {
    const under = parent === undefined || can(segs[i - 2], parent);
    if (under && can(prev, dir) && reaches(cur, file)) return rule;
  }
  if (can(cur, ".docker") && (reaches(next, "config.json") || reached)) return "docker-config";
  if (can(prev, ".config")) {
    for (const { dir, rule, whole } of CONFIG_DIRS) {
      if (can(cur, dir) && (whole || reached)) return rule;
    }
  }
  // `credentials` one or two levels inside a hidden directory: `~/.<tool>/credentials`,
  // `~/.config/<tool>/credentials`. Not deeper: workspaces live under a hidden FORGE_HOME.
  if (can(cur, "credentials") && segs.slice(Math.max(0, i - 2), i).some(isHiddenDir)) {
    return "credentials-file";
  }
  return null;
}

function isHiddenDir(seg: CredentialSegment): boolean {
  return "lit" in seg && seg.lit.startsWith(".") && seg.lit !== "." && seg.lit !== "..";
}

/** Literal segments of an absolute path or a repository path, as credentialRule reads them. */
export function literalSegments(segments: readonly string[]): CredentialSegment[] {
  return segments.map((s) => ({ lit: s.toLowerCase() }));
}
