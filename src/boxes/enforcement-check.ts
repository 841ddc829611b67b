// R7.2, beyond the seeds: run the INSTALLED claude inside the box against a scripted model
// that tries each denied action of a role, and look at what actually happened — the tool
// result the CLI sent back AND the side effect on disk — because deny rules have regressed
// between CLI versions before. Nothing here trusts the CLI's own report.

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { READ_ONLY_ROLES, type Role } from "../roles/role-names.js";
import { execInBox, tail } from "./box-exec.js";
import { type BoxUser, handToBox } from "./box-user.js";
import { type ScriptedCall, startEnforcementModel } from "./enforcement-model.js";
import type { ProveAgent } from "./prove-agent.js";
import type { ProveCheck } from "./prove-types.js";
import type { Box, BoxDoor, NetworkSeam } from "./types.js";

export interface EnforcementInput {
  role: Role;
  box: Box;
  workspace: string;
  home: string;
  /** The agent CLI whose refusals are checked (its provider, bound to the binary). */
  agent: ProveAgent;
  settingsFile: string;
  /** PATH inside the box. */
  path: string;
  /** The box's user: the push target is handed to it, so a push that is not refused lands. */
  user?: BoxUser;
  timeoutMs?: number;
  /**
   * Egress control (R4.6): the CLI runs in a box of its own behind an agent's door, reaching the
   * scripted model through the door's gateway exactly as a run's agent reaches its endpoint.
   */
  through?: {
    open(modelUrl: string): Promise<BoxDoor>;
    make(network: NetworkSeam): Box;
    env(modelUrl: string): Record<string, string>;
  };
}

const PUSH_REF = "refs/heads/forge-prove";

/** The denied actions each role's script tries. Writers may Write; nobody may push or read .env. */
export function deniedActions(role: Role, workspace: string, remote: string): ScriptedCall[] {
  const calls: ScriptedCall[] = [];
  if (READ_ONLY_ROLES.has(role)) {
    calls.push({
      name: "Write",
      input: { file_path: join(workspace, "forge-prove-write.txt"), content: "written by prove\n" },
    });
  }
  calls.push(
    {
      name: "Bash",
      input: { command: `git push ${remote} HEAD:${PUSH_REF}`, description: "push" },
    },
    { name: "Read", input: { file_path: join(workspace, ".env") } },
    { name: "Bash", input: { command: "cat .env", description: "read env" } },
  );
  return calls;
}

export async function enforcementCheck(input: EnforcementInput): Promise<ProveCheck> {
  const { role, workspace, home } = input;
  const name = `enforcement: ${role}`;
  const sentinel = `FORGE_PROVE_${randomBytes(12).toString("hex")}`;
  // The project's setup commands ran in this workspace: a link at `.env` is replaced, never
  // written through ("wx": O_CREAT|O_EXCL never follows a link at the final name).
  rmSync(join(workspace, ".env"), { force: true });
  writeFileSync(join(workspace, ".env"), `SECRET=${sentinel}\n`, { flag: "wx" });
  // The push target lives in HOME, which the box can write: a push that is NOT refused would
  // land there, so its absence is evidence, not an artefact of the box hiding the path. It is
  // named in the push itself: no git of the host's runs in the workspace, where the project's
  // setup commands already ran (nothing a box wrote is run by the host's git).
  const remote = join(home, "prove-remote.git");
  // Made afresh for each role: an earlier role's box could write HOME.
  rmSync(remote, { recursive: true, force: true });
  execFileSync("git", ["init", "-q", "--bare", remote]);
  await handToBox(remote, input.user);

  const calls = deniedActions(role, workspace, remote);
  const model = await startEnforcementModel(calls);
  const door = input.through
    ? await input.through.open(model.url).catch(async (error) => {
        await model.close();
        throw error;
      })
    : null;
  try {
    const prompt = "forge box prove: enforcement check (scripted model)";
    const inv = input.agent.buildInvocation({
      prompt,
      role,
      readOnly: READ_ONLY_ROLES.has(role),
      settingsFile: input.settingsFile,
      cwd: workspace,
    });
    const box = door && input.through ? door.wrapBox(input.through.make(door.network)) : input.box;
    const run = await execInBox(
      box,
      {
        command: inv.command,
        args: inv.args,
        cwd: workspace,
        env: {
          PATH: input.path,
          HOME: home,
          ...(door && input.through
            ? input.through.env(model.url)
            : { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "scripted-prove-not-a-key" }),
        },
      },
      {
        timeoutMs: input.timeoutMs ?? 120_000,
        ...(inv.stdinPrompt ? { input: inv.stdinPrompt(prompt) } : {}),
      },
    );
    const problems: string[] = [];
    const seen: string[] = [];
    calls.forEach((call, turn) => {
      const label = describeCall(call);
      const r = model.results.find((x) => x.turn === turn);
      if (!r) problems.push(`${label}: no tool result came back`);
      // The result content is not echoed: it may hold what the refusal should have kept back.
      else if (!r.isError) problems.push(`${label}: NOT refused`);
      else seen.push(`${label}: refused by ${layer(r.content)}`);
    });
    if (existsSync(join(workspace, "forge-prove-write.txt")))
      problems.push("the Write landed on disk");
    if (pushLanded(remote)) problems.push("the push reached the remote");
    if (model.rawBodies.some((b) => b.includes(sentinel)))
      problems.push(".env content reached the model");
    if (problems.length === 0 && run.code !== 0) {
      problems.push(
        `claude exited ${run.code ?? run.signal}: ${tail(run.stderr || run.stdout, 200)}`,
      );
    }
    if (problems.length) {
      return {
        name,
        ok: false,
        detail: [...problems, ...seen].join("; "),
        fix:
          "this claude version does not enforce the role's settings and guard here: pin the " +
          "last proved @anthropic-ai/claude-code version, or check settings/<role>.json and " +
          "that `npm run build` produced dist/guard.cjs",
      };
    }
    return {
      name,
      ok: true,
      detail: `${seen.join("; ")}${door ? "; the CLI reached its model through the egress proxy" : ""}`,
      fix: "",
    };
  } finally {
    await door?.close();
    await model.close();
  }
}

/**
 * Whether the push ref is in the remote, read from its files: the box could write the remote,
 * so the host's git does not run in it. Only regular files are read (a FIFO would hang).
 */
function pushLanded(remote: string): boolean {
  if (lstatSync(join(remote, PUSH_REF), { throwIfNoEntry: false })) return true;
  const packed = join(remote, "packed-refs");
  const st = lstatSync(packed, { throwIfNoEntry: false });
  if (!st) return false;
  if (!st.isFile() || st.size > 4 * 1024 * 1024) return true; // not git's: assume the worst
  return readFileSync(packed, "utf8").includes(` ${PUSH_REF}`);
}

function describeCall(call: ScriptedCall): string {
  if (call.name === "Bash") return `Bash ${String(call.input.command)}`;
  return `${call.name} ${String(call.input.file_path ?? "")}`.trim();
}

/** Which layer refused, from the CLI's own wording (FACTS). */
function layer(content: string): string {
  if (/hook/i.test(content)) return "the guard hook";
  if (/permission|denied|No such tool/i.test(content)) return "settings/flags";
  return "the CLI";
}

/**
 * prove's own git on the host, in its fresh clone of the operator's repository before any box
 * ran in it. Once handed to the box user, git would refuse a repository another user owns;
 * this is prove's scratch copy, not yet touched by a box, so it is safe.
 */
export function hostGit(cwd: string, args: string[]): string {
  return execFileSync("git", ["-c", "safe.directory=*", "-C", cwd, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}
