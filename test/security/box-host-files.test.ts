// Attack 2 of the security issue (host files readable in every box), as a real chain: the real
// claude binary in real bwrap boxes, a scripted model, real git. The architect (a read-only
// role) and the reviewer read `/etc/shadow` and a root-only (0600) deployment secret under
// /srv with Read and Bash; the builder's test code cats those, the install root's `.env` and a
// secret in FORGE_HOME.
// Property: none of those host files' contents reaches the model — in no request body, in no
// encoding (the box runs unprivileged and sees an allowlist of host paths).
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root, useModelServer, withRole } from "../runner/chain-helpers.js";
import {
  type AttackCanaries,
  architectPass,
  bash,
  builderRunsTestSh,
  foundIn,
  leakingCalls,
  newCanary,
  oneByOne,
  outcome,
  read,
  requestText,
  reviewPass,
  runAttack,
} from "./security-kit.js";

const server = useModelServer();

/** Host secrets planted for this file, removed after it. */
const host = {
  srvDir: join("/srv", `forge-sec-${process.pid}-${Date.now()}`),
  srvFile: "",
  srvValue: newCanary("SRV"),
  rootEnv: join(root, ".env"),
  rootEnvValue: newCanary("INSTALLROOTENV"),
  /** Whether this file created the install root's .env (then it removes it). */
  ownsRootEnv: false,
};
host.srvFile = join(host.srvDir, "app.env");

beforeAll(() => {
  // A deployment's env file: root's own, mode 0600 in a 0700 directory.
  mkdirSync(host.srvDir, { mode: 0o700 });
  writeFileSync(host.srvFile, `GITHUB_APP_PRIVATE_KEY=${host.srvValue}\n`, { mode: 0o600 });
  chmodSync(host.srvFile, 0o600);
  // The install root's .env (git-ignored there); only when none exists: never clobber one.
  if (!existsSync(host.rootEnv)) {
    writeFileSync(host.rootEnv, `ANTHROPIC_API_KEY=${host.rootEnvValue}\n`, { mode: 0o600 });
    host.ownsRootEnv = true;
  }
});

afterAll(() => {
  rmSync(host.srvDir, { recursive: true, force: true });
  if (host.ownsRootEnv) rmSync(host.rootEnv, { force: true });
});

/** The first entry of /etc/shadow (root's): text that exists nowhere but in that file. */
function shadowLine(): string {
  return readFileSync("/etc/shadow", "utf8").split("\n")[0] ?? "";
}

describe("host files stay out of every box (attack 2)", () => {
  it("no role's request carries /etc/shadow, a root-only /srv file, the install root's .env or a FORGE_HOME secret", async () => {
    const looks = oneByOne([
      read("/etc/shadow"),
      bash("cat /etc/shadow"),
      read(host.srvFile),
      bash(`cat ${host.srvFile}`),
      read(host.rootEnv),
    ]);
    // The builder's code reads what the guard would refuse to a tool call.
    const testSh = (forgeHomeFile: string) =>
      [
        "#!/bin/sh",
        "cat /etc/shadow",
        `cat '${host.srvFile}'`,
        `cat '${host.rootEnv}'`,
        `cat '${forgeHomeFile}'`,
        'echo "1 passed"',
        "exit 0",
        "",
      ].join("\n");
    const script = ({ forgeHomeFile }: AttackCanaries) =>
      withRole(
        "architect",
        [...looks, architectPass()],
        withRole(
          "builder",
          builderRunsTestSh(testSh(forgeHomeFile)),
          withRole("reviewer", [...looks, reviewPass()]),
        ),
      );
    const r = await runAttack(server, script);
    try {
      const asked = requestText(server);
      const why = outcome(r);
      // The attack was tried: the architect's and the builder's calls got answers.
      expect(
        server.toolResults.some((t) => t.input?.command === "make test"),
        why,
      ).toBe(true);
      expect(
        server.toolResults.some((t) => t.input?.file_path === "/etc/shadow"),
        why,
      ).toBe(true);
      const secrets = {
        "/etc/shadow": shadowLine(),
        [host.srvFile]: host.srvValue,
        ...(host.ownsRootEnv ? { [host.rootEnv]: host.rootEnvValue } : {}),
        "FORGE_HOME secret": r.canaries.forgeHomeValue,
      };
      for (const [where, value] of Object.entries(secrets)) {
        const by = leakingCalls(server, value).join(" | ");
        expect
          .soft(foundIn(asked, value), `${where} reached the model (${by}); ${why}`)
          .toEqual([]);
      }
    } finally {
      await r.f.cleanup();
    }
  });
});
