// docker/podman box from the project's image (R7.1). No container engine runs on this machine
// (the client answers, nothing starts), so this builds the argv only; tests check the argv.
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { containerNetworkArgs, networkNotes, resolveNetwork } from "./network.js";
import { absUnder, isWithin, pathKind } from "./paths.js";
import { type Box, type BoxCommand, type BoxOptions, BoxRefusedError } from "./types.js";

export const CONTAINER_WORKSPACE = "/workspace";
export const CONTAINER_HOME = "/home/forge";

export function containerBox(opts: BoxOptions): Box {
  if (!opts.image)
    throw new BoxRefusedError("container", "the container box needs the project's image");
  const image = opts.image;
  const engine = opts.engine ?? "docker";
  const seam = resolveNetwork(opts);
  const workspace = resolve(opts.workspace);
  const home = resolve(opts.home);

  /** Host paths under the workspace or HOME become their mount points inside. */
  const inside = (p: string): string => {
    if (isWithin(p, workspace)) return CONTAINER_WORKSPACE + p.slice(workspace.length);
    if (isWithin(p, home)) return CONTAINER_HOME + p.slice(home.length);
    return p;
  };

  return {
    kind: "container",
    wrap(cmd: BoxCommand) {
      // A name of our own, so a kill can reach the container and not only the client.
      const name = `forge-box-${randomBytes(8).toString("hex")}`;
      const a = [
        "run",
        "--rm",
        "--name",
        name,
        "--init",
        // Keep stdin attached: an agent may take its prompt on stdin (claude does).
        "--interactive",
        "--cap-drop",
        "ALL",
        "--security-opt",
        "no-new-privileges",
      ];
      if (opts.cpus !== undefined) a.push("--cpus", String(opts.cpus));
      if (opts.memoryMb !== undefined) a.push("--memory", `${opts.memoryMb}m`);
      a.push(...containerNetworkArgs(seam));
      a.push("-v", `${workspace}:${CONTAINER_WORKSPACE}`, "-v", `${home}:${CONTAINER_HOME}`);
      // The runner's git reads this config on the host after the step (bwrap.ts, gitDirArgs).
      const gitConfig = join(workspace, ".git", "config");
      if (pathKind(gitConfig) === "file") a.push("-v", `${gitConfig}:${inside(gitConfig)}:ro`);
      for (const p of opts.readOnlyPaths ?? []) {
        const abs = absUnder(workspace, p);
        a.push("-v", `${abs}:${inside(abs)}:ro`);
      }
      for (const p of opts.denySubpaths ?? []) {
        // An anonymous volume hides a directory's content; a file is covered by /dev/null.
        a.push("--mount", `type=tmpfs,destination=${inside(absUnder(workspace, p))}`);
      }
      a.push("-w", inside(resolve(cmd.cwd)));
      // `-e NAME` without a value: the engine copies it from the client's environment, so no
      // secret value appears on the argv.
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(cmd.env)) {
        a.push("-e", k);
        env[k] = k === "HOME" ? CONTAINER_HOME : inside(v);
      }
      a.push(image, cmd.command, ...cmd.args.map(inside));
      // The engine client itself needs PATH to be found; the container sees only the -e names.
      return { command: engine, args: a, env, stop: { command: engine, args: ["kill", name] } };
    },
    describe: () => ({
      kind: "container",
      network: seam.mode === "host" ? "host" : "none",
      networkMode: seam.mode,
      engine,
      image,
      cpus: opts.cpus ?? null,
      memoryMb: opts.memoryMb ?? null,
      isolation: [
        "own filesystem from the project's image; only workspace and HOME mounted",
        "CPU and memory limits when given; all capabilities dropped; no-new-privileges",
        "secrets only as -e names for this job",
      ],
      notes: [
        ...networkNotes(seam),
        `no container engine runs on this machine: the ${engine} argv is built and tested, not run`,
        "deny subpaths inside the workspace are covered by tmpfs mounts (a file path needs a directory mount)",
      ],
    }),
  };
}
