// One box's door to the network (R4.6): the runner opens it before the box starts and closes it
// when the box has ended. In a bwrap box under egress control the door is an allowlist proxy of
// its own on a Unix socket in a fresh 0700 directory (src/egress/proxy.ts), bound into a box
// that has its own network namespace; the box's command starts behind the in-box relay and its
// processes get the proxy variables. Every refusal becomes an `egress.denied` event of the phase.
// Under FORGE_EGRESS=host, or in a box kind without the proxy (container, worktree), the door
// is the host network, and the run says so.
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BoxUser } from "../boxes/box-user.js";
import { PROXY_SOCKET_IN_BOX } from "../boxes/network.js";
import type { Box, BoxDoor, BoxKind, NetworkSeam } from "../boxes/types.js";
import { parseEgressEntry } from "../egress/allowlist.js";
import type { GatewayOptions } from "../egress/gateway.js";
import { type EgressDenial, startEgressProxy } from "../egress/proxy.js";
import { proxyEnv, RELAY_PORT_IN_BOX, withRelay } from "../egress/relay-command.js";
import { EGRESS_DENIED_EVENT, type EgressMode, type EgressPhase } from "../policy/index.js";

/** perl for the in-box relay (bin/forge-egress-relay.pl), when the host has it. */
const PERL = ["/usr/bin/perl", "/bin/perl"].find((p) => existsSync(p));

/** At most this many `egress.denied` events per box; the rest are counted in the last one. */
export const MAX_DENIED_EVENTS = 50;

export interface DoorDeps {
  mode: EgressMode;
  boxKind: BoxKind;
  boxUser: BoxUser;
  /** forgechain's install root: the relay is its dist/egress-relay.cjs (in the toolbox). */
  installRoot: string;
  /** Where the socket directories are made (default /tmp; a box's /tmp is its own). */
  socketParent?: string;
}

export interface DoorSpec {
  phase: EgressPhase;
  /** The step whose box this is (absent for the setup phase). */
  role?: string;
  index?: number;
  /** Host entries the box may reach by CONNECT or plain HTTP (egress-entry.ts forms). */
  rules: readonly string[];
  /** The model gateway: origin-form requests go there, with the real credential added. */
  gateway?: GatewayOptions;
}

/** The box's door (BoxDoor): its seam, its relay-wrapped commands, and close → refusals. */
export type Door = BoxDoor;

/** Whether boxes of this kind go through the proxy under this mode. */
export function egressControlled(deps: Pick<DoorDeps, "mode" | "boxKind">): boolean {
  return deps.mode === "proxy" && deps.boxKind === "bwrap";
}

export async function openDoor(deps: DoorDeps, spec: DoorSpec): Promise<Door> {
  if (!egressControlled(deps)) {
    return { network: { mode: "host" }, wrapBox: (box) => box, close: async () => [] };
  }
  const rules = spec.rules.map(parseEgressEntry);
  const dir = mkdtempSync(join(deps.socketParent ?? "/tmp", "forge-e-")); // mode 0700
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const denied: EgressDenial[] = [];
  let total = 0;
  let proxy: Awaited<ReturnType<typeof startEgressProxy>>;
  try {
    // The box user connects through the bound socket: the directory and the socket are its.
    if (deps.boxUser.switched) chownSync(dir, deps.boxUser.uid, deps.boxUser.gid);
    proxy = await startEgressProxy({
      socketPath: join(dir, "egress.sock"),
      rules,
      ...(spec.gateway ? { gateway: spec.gateway } : {}),
      ...(deps.boxUser.switched
        ? { socketOwner: { uid: deps.boxUser.uid, gid: deps.boxUser.gid } }
        : {}),
      onDenied: (d) => {
        total++;
        if (denied.length < MAX_DENIED_EVENTS) denied.push(d);
      },
    });
  } catch (error) {
    removeDir();
    throw error;
  }
  const relay = {
    port: RELAY_PORT_IN_BOX,
    socketInBox: PROXY_SOCKET_IN_BOX,
    node: process.execPath,
    relayScript: join(deps.installRoot, "dist", "egress-relay.cjs"),
    // The box shows the host's /usr: the relay runs in Debian's essential perl-base when there.
    ...(PERL
      ? { perl: { perl: PERL, script: join(deps.installRoot, "bin", "forge-egress-relay.pl") } }
      : {}),
  };
  let closed: Promise<Array<{ type: string; data: Record<string, unknown> }>> | undefined;
  return {
    network: { mode: "proxy", proxySocket: proxy.socketPath },
    wrapBox: (box) => ({
      kind: box.kind,
      describe: () => box.describe(),
      wrap: (cmd) =>
        box.wrap({
          ...cmd,
          ...withRelay({ command: cmd.command, args: cmd.args }, relay),
          env: { ...cmd.env, ...proxyEnv(relay.port) },
        }),
    }),
    close() {
      closed ??= proxy.close().then(() => {
        removeDir();
        return denied.map((d, i) => ({
          type: EGRESS_DENIED_EVENT,
          data: {
            phase: spec.phase,
            ...(spec.role !== undefined ? { role: spec.role } : {}),
            ...(spec.index !== undefined ? { index: spec.index } : {}),
            host: d.host,
            port: d.port,
            reason: d.reason,
            at: d.at,
            // The last kept event says how many more there were.
            ...(i === denied.length - 1 && total > denied.length
              ? { more: total - denied.length }
              : {}),
          },
        }));
      });
      return closed;
    },
  };
}

/**
 * A box made behind a fresh door, `fn` run with it, the door closed after: the usual shape of a
 * phase (setup, verify, the controls).
 */
export async function inDoorBox<T>(
  open: () => Promise<Door>,
  make: (network: NetworkSeam) => Box,
  events: Array<{ type: string; data: Record<string, unknown> }>,
  fn: (box: Box) => Promise<T>,
): Promise<T> {
  const door = await open();
  try {
    return await fn(door.wrapBox(make(door.network)));
  } finally {
    events.push(...(await door.close()));
  }
}
