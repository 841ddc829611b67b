// Attack 1 of the security issue (host code execution through the builder's `.git`), as real
// chains: the real claude binary in real bwrap boxes, a scripted model, real git. The builder's
// code (`tests/test.sh`, run by `make test` in its box) plants git state that names a command
// — through `commondir`, `config.worktree`, `include.path`, `includeIf`, `core.worktree`,
// attribute files inside `.git`, `gitdir:` files and `objects/info/alternates` — then edits
// greet.sh and PASSes.
// Property: nothing the box wrote runs on the host. The planted command writes a canary file
// in a host directory the box cannot see; that file never appears. Neither the runner's
// environment canary nor a FORGE_HOME secret reaches the origin or any model request, and no
// object of another repository on the host is pushed.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitIn, makeRepo, tempDir } from "../helpers/git-repo.js";
import { useModelServer, withRole } from "../runner/chain-helpers.js";
import { PLANT_VARIANTS, type PlantVariant, plantScript, RAN } from "./git-plants.js";
import {
  builderRunsTestSh,
  foundIn,
  hostCanaryFile,
  newCanary,
  originObjects,
  outcome,
  requestText,
  runAttack,
} from "./security-kit.js";

const server = useModelServer();

/** One variant: plant, let the chain run to its end, then look for the canaries. */
async function plantAndCheck(variant: PlantVariant): Promise<void> {
  const host = hostCanaryFile();
  // Another repository on this machine whose objects the alternates variant borrows.
  const other = tempDir("forge-sec-other-");
  const otherSecret = newCanary("OTHERREPO");
  makeRepo(other.dir, { "private.txt": `${otherSecret}\n` });
  const otherObjects = join(other.dir, ".git", "objects");
  const otherBlob = gitIn(other.dir, "rev-parse", "HEAD:private.txt");
  const r = await runAttack(server, ({ forgeHomeFile }) => {
    const testSh = plantScript(variant, {
      canaryFile: host.file,
      forgeHomeFile,
      otherObjects,
      otherBlob,
    });
    return withRole("builder", builderRunsTestSh(testSh));
  }).catch((error: unknown) => {
    other.cleanup();
    host.cleanup();
    throw error;
  });
  try {
    // The attack was tried: the builder's code ran in its box.
    const make = server.toolResults.find((t) => t.input?.command === "make test");
    const why = outcome(r);
    expect(make?.content, why).toContain(RAN);
    const ranOnHost = existsSync(host.file) ? readFileSync(host.file, "utf8").slice(0, 300) : "";
    expect.soft(ranOnHost, `the planted command ran on the host; ${why}`).toBe("");
    const pushed = originObjects(r.f.repo);
    const asked = requestText(server);
    for (const secret of [r.canaries.envValue, r.canaries.forgeHomeValue, otherSecret]) {
      expect.soft(foundIn(pushed, secret), `pushed to the origin; ${why}`).toEqual([]);
      expect.soft(foundIn(asked, secret), `sent to the model; ${why}`).toEqual([]);
    }
  } finally {
    await r.f.cleanup();
    other.cleanup();
    host.cleanup();
  }
}

describe("nothing a box wrote runs on the host (attack 1)", () => {
  it.each(PLANT_VARIANTS)("a builder planting %s runs nothing on the host", plantAndCheck);
});
