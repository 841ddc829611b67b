// Issue 4's acceptance through the real runner: the resolved config and the role profiles
// reach the box, the provider, the role gate and the protected-path gate function.
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import { verifyLedger } from "../../src/policy/index.js";
import type { Script } from "../../src/scripted-model/server.js";
import { gitIn, tempDir } from "../helpers/git-repo.js";
import { fake } from "../secrets/fake-secrets.js";
import {
  type FixtureOptions,
  root,
  runScripted,
  useModelServer,
  withRole,
} from "./chain-helpers.js";

const server = useModelServer();

/** A copy of profiles/ with one profile changed. */
function profilesWith(
  role: string,
  change: (p: Record<string, unknown>) => void,
): { dir: string; cleanup: () => void } {
  const t = tempDir("forge-profiles-");
  cpSync(join(root, "profiles"), t.dir, { recursive: true });
  const file = join(t.dir, `${role}.json`);
  const profile = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  change(profile);
  writeFileSync(file, JSON.stringify(profile, null, 2));
  return t;
}

const runChain = (script: Script, fixture: FixtureOptions = {}) =>
  runScripted(server, script, fixture);

describe("the resolved config reaches the runner", () => {
  it("runs the validate: controls inside the box", async () => {
    // Outside a box root may write /usr; inside, the root is read-only. The control passes
    // only where it is supposed to run.
    const probe =
      "if touch /usr/forge-control-probe 2>/dev/null; then rm -f /usr/forge-control-probe; echo NOT-BOXED; exit 1; fi; echo boxed-ok";
    const { f, final, events } = await runChain(demoScript(), {
      setupRepo: (repo) => {
        writeFileSync(
          join(repo, ".github", "forge.yml"),
          `validate:\n  test:\n    run: "${probe} && make test"\n`,
        );
        gitIn(repo, "commit", "-qam", "boxed control");
      },
    });
    try {
      expect(final.state).toBe("passed");
      const controls = events.find((e) => e.type === "controls.finished");
      expect(controls?.data.passed).toBe(true);
      expect(JSON.stringify(controls?.data.lines)).toMatch(/test/);
      expect(existsSync("/usr/forge-control-probe")).toBe(false);
    } finally {
      await f.cleanup();
    }
  });

  it("the floor's secret scan reads the builder's commit, and the reviewer gets its findings", async () => {
    const token = fake.githubToken();
    const summary = "A summary long enough for the schema. ".repeat(8);
    const { f, events } = await runChain(
      withRole("builder", [
        {
          tools: [
            { name: "Write", input: { file_path: "notes/deploy.txt", content: `t=${token}\n` } },
          ],
        },
        {
          structured: {
            verdict: "PASS",
            summary,
            evidence: [{ command: "sh scripts/verify.sh", exit_code: 0, output: "" }],
          },
        },
      ]),
    );
    try {
      const controls = events.find((e) => e.type === "controls.finished");
      // The demo config has no security control: the floor adds the advisory built-in.
      expect(JSON.stringify(controls?.data.lines)).toContain("security (advisory): failed");
      const reviewer = server.mainRequests().find((r) => r.route === 2);
      const prompt = JSON.stringify(reviewer?.body ?? "");
      expect(prompt).toContain("notes/deploy.txt:1: github");
    } finally {
      await f.cleanup();
    }
  });

  it("hands the changed files to the protected-path gate function", async () => {
    const { f, final, events } = await runChain(
      withRole("builder", [
        { tools: [{ name: "Write", input: { file_path: "CODEOWNERS", content: "* @someone\n" } }] },
        {
          structured: {
            verdict: "PASS",
            summary: "Added a CODEOWNERS file as asked. ".repeat(8),
            evidence: [{ command: "true", exit_code: 0, output: "" }],
          },
        },
      ]),
    );
    try {
      expect(final.state).toBe("passed");
      const touched = events.find((e) => e.type === "protected.touched");
      expect(touched?.data.files).toEqual(["CODEOWNERS"]);
      const output = gitIn(f.repo, "show", `${final.branch}:.forge/run-output-${final.id}.md`);
      expect(output).toMatch(/protected paths touched .*CODEOWNERS/);
    } finally {
      await f.cleanup();
    }
  });
});

describe("the role profiles reach the provider and the role gate (R7.3)", () => {
  it("max_turns ends a step that runs past it", async () => {
    const p = profilesWith("architect", (profile) => {
      profile.max_turns = 1;
    });
    const { f, steps } = await runChain(
      withRole("architect", [
        { tools: [{ name: "Read", input: { file_path: "README.md" } }] },
        { tools: [{ name: "Read", input: { file_path: "greet.sh" } }] },
        { tools: [{ name: "Read", input: { file_path: "Makefile" } }] },
      ]),
      { profilesDir: p.dir },
    );
    try {
      expect(steps[0]?.state).toBe("failed");
      expect(steps[0]?.decision?.reasons.join(" ")).toMatch(/went past its 1 turns/);
    } finally {
      await f.cleanup();
      p.cleanup();
    }
  });

  it("a call matching disallowed_tools is refused, ledgered, and ends the step with ROLE_GATE_VIOLATION", async () => {
    const p = profilesWith("builder", (profile) => {
      profile.disallowed_tools = [...(profile.disallowed_tools as string[]), "Bash(make:*)"];
    });
    const { f, steps, events, final } = await runChain(demoScript(), { profilesDir: p.dir });
    try {
      const builder = steps.find((s) => s.role === "builder");
      expect(builder?.state).toBe("failed");
      const reasons = builder?.decision?.reasons ?? [];
      expect(reasons[0]).toMatch(
        /^ROLE_GATE_VIOLATION: the builder profile denies Bash\(make:\*\)$/,
      );
      expect(reasons.join(" ")).not.toMatch(/SIGKILL/);
      // The step ended at the violation (the guard's denial tells Claude Code to stop): the
      // model never even received the refusal, nor got to its output.
      expect(server.toolResults.some((r) => r.input?.command === "make test")).toBe(false);
      expect(
        server.toolResults.some(
          (r) =>
            r.name === "StructuredOutput" && String(r.input?.summary).includes("make test passes"),
        ),
      ).toBe(false);
      expect(events.find((e) => e.type === "role_gate.violation")?.data.ledgerLines).toBe(1);
      const ledger = join(f.forgeHome, "work", final.id, "steps", "1-builder-1", "ledger.jsonl");
      expect(verifyLedger(ledger).ok).toBe(true);
    } finally {
      await f.cleanup();
      p.cleanup();
    }
  });
});
