// Attack 1 of the security issue, second half: no step sees another step's `.git` state. The
// builder's code (`tests/test.sh`, run by `make test` in its box) plants state in `.git` that
// forges what the reviewer's own git prints — `diff.external` through a `commondir` config,
// `* -diff` in `.git/info/attributes`, a commit swapped in by `.git/info/grafts` — or leaves an
// uncommitted file hidden by `.git/info/exclude`. Real chains: the real claude binary, real
// bwrap boxes, a scripted model, real git.
// Property: the reviewer's own `git diff HEAD~1`, as its result reached the model, shows the
// builder's real change (not the forged one), and nothing the builder left uncommitted reaches
// the reviewer.
import { describe, expect, it } from "vitest";
import type { Script, ToolResult } from "../../src/scripted-model/server.js";
import { useModelServer, withRole } from "../runner/chain-helpers.js";
import { RAN } from "./git-plants.js";
import {
  bash,
  builderRunsTestSh,
  GREET_SH,
  newCanary,
  outcome,
  read,
  reviewPass,
  runAttack,
  write,
} from "./security-kit.js";

const server = useModelServer();

/** The line the builder's real change adds to greet.sh, as `git diff` prints it. */
const REAL_CHANGE = `+echo "Hello, \${1:-world}!"`;
const FORGED = "FORGED-DIFF: nothing to see here";
/** How the plant spells it: the plant is in the builder's diff, so the text must not be. */
const FORGED_SPELT = FORGED.replace("-", '""-');

const IDENTITY =
  "export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.invalid GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.invalid";

/** A plant in `tests/test.sh`: runs once (verify runs the script again), always passes. */
function once(lines: string[]): string {
  return [
    "#!/bin/sh",
    `echo '${RAN}'`,
    "W=$(pwd)",
    'if [ ! -e "$W/.git/forge-sec-planted" ]; then',
    '  touch "$W/.git/forge-sec-planted"',
    ...lines.map((l) => `  ${l}`),
    "fi",
    'echo "1 passed"',
    "exit 0",
    "",
  ].join("\n");
}

const FORGERS: Record<string, string> = {
  // A common dir whose config sets diff.external to a script printing a harmless diff.
  "diff.external (commondir)": once([
    'C="$W/.git/c"',
    'mkdir -p "$C"',
    'cp -R "$W/.git/objects" "$W/.git/refs" "$C/" 2>/dev/null',
    'cp "$W/.git/packed-refs" "$C/" 2>/dev/null',
    'cp "$W/.git/config" "$C/config"',
    `printf '#!/bin/sh\\necho "${FORGED_SPELT}"\\n' > "$C/forge-diff.sh"`,
    `git config -f "$C/config" diff.external "sh '$C/forge-diff.sh'"`,
    'printf c > "$W/.git/commondir"',
  ]),
  // Every file becomes "binary": `git diff` prints no line of it.
  "info/attributes -diff": once([
    'mkdir -p "$W/.git/info"',
    "printf '* -diff\\n' > \"$W/.git/info/attributes\"",
  ]),
  // The builder commits, then grafts a parent with the same tree under its commit: HEAD~1
  // then shows no change at all.
  "info/grafts": once([
    IDENTITY,
    "git add -A && git commit -qm 'builder work'",
    "fake=$(git commit-tree 'HEAD^{tree}' -m 'the base')",
    'mkdir -p "$W/.git/info"',
    'echo "$(git rev-parse HEAD) $fake" > "$W/.git/info/grafts"',
  ]),
};

/** The tool results of one role's conversation (routed scripts number their tool ids). */
function resultsOf(script: Script, role: string): ToolResult[] {
  const route = (script.routes ?? []).findIndex((r) => r.marker === `forgechain step: ${role}`);
  return server.toolResults.filter((t) => t.toolUseId.startsWith(`toolu_forge_r${route}_`));
}

describe("no step sees another step's .git state (attack 1)", () => {
  it.each(Object.keys(FORGERS))(
    "the reviewer's own git diff shows the real change despite the builder's %s",
    async (name) => {
      const testSh = FORGERS[name] ?? "";
      // The graft needs the change committed by the builder itself: edit first.
      const builder = builderRunsTestSh(testSh, { before: [write("greet.sh", GREET_SH)] });
      const script = withRole(
        "reviewer",
        [{ tools: [bash("git diff HEAD~1")] }, reviewPass()],
        withRole("builder", builder),
      );
      const r = await runAttack(server, script);
      try {
        const make = resultsOf(script, "builder").find((t) => t.input?.command === "make test");
        expect(make?.content).toContain(RAN);
        const diff = resultsOf(script, "reviewer").find(
          (t) => t.input?.command === "git diff HEAD~1",
        );
        expect(diff, outcome(r)).toBeDefined();
        expect(diff?.content).toContain(REAL_CHANGE);
        expect(diff?.content).not.toContain(FORGED);
      } finally {
        await r.f.cleanup();
      }
    },
  );

  it("a file the builder left uncommitted behind .git/info/exclude does not reach the reviewer", async () => {
    const leftBehind = newCanary("LEFTBEHIND");
    const testSh = once([
      // Spelt in two halves: the script itself is in the builder's diff, the value must not be.
      `printf '%s%s\\n' '${leftBehind.slice(0, 20)}' '${leftBehind.slice(20)}' > "$W/notes-left-behind.txt"`,
      'mkdir -p "$W/.git/info"',
      'echo notes-left-behind.txt >> "$W/.git/info/exclude"',
    ]);
    const script = withRole(
      "reviewer",
      [{ tools: [read("notes-left-behind.txt")] }, reviewPass()],
      withRole("builder", builderRunsTestSh(testSh)),
    );
    const r = await runAttack(server, script);
    try {
      const make = resultsOf(script, "builder").find((t) => t.input?.command === "make test");
      expect(make?.content).toContain(RAN);
      const seen = resultsOf(script, "reviewer")
        .map((t) => t.content)
        .join("\n");
      expect(seen, outcome(r)).not.toContain(leftBehind);
    } finally {
      await r.f.cleanup();
    }
  });
});
