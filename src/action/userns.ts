// Boxes on an Actions runner (R10.3): the job runs as the unprivileged `runner` user, so bwrap
// needs unprivileged user namespaces. GitHub's Ubuntu 24.04 images restrict them through
// AppArmor (kernel.apparmor_restrict_unprivileged_userns=1): bwrap then fails. The action looks
// before the first box, lifts the restriction itself when the runner has passwordless sudo (as
// codex-action does), saying so in the log, and otherwise stops with the exact step to add.
import { readFileSync } from "node:fs";
import { execa } from "execa";

export const APPARMOR_SYSCTL = "kernel.apparmor_restrict_unprivileged_userns";

/** Each kernel setting that can forbid unprivileged user namespaces, and its blocking value. */
const RESTRICTIONS: Array<{ sysctl: string; blocks: (value: string) => boolean }> = [
  { sysctl: APPARMOR_SYSCTL, blocks: (v) => v === "1" },
  { sysctl: "kernel.unprivileged_userns_clone", blocks: (v) => v === "0" },
  { sysctl: "user.max_user_namespaces", blocks: (v) => v === "0" },
];

export class UserNamespaceError extends Error {
  override readonly name = "UserNamespaceError";
}

export interface UsernsHost {
  isRoot: boolean;
  /** A sysctl's value (from /proc/sys), or null when the kernel has no such setting. */
  sysctl(name: string): string | null;
  /** Whether `sudo -n true` succeeds (passwordless sudo). */
  sudo(): Promise<boolean>;
  /** `sudo -n sysctl -w <name>=<value>`; true when it succeeded. */
  setSysctl(name: string, value: string): Promise<boolean>;
  log(line: string): void;
}

export const realUsernsHost = (log: (line: string) => void): UsernsHost => ({
  isRoot: process.getuid?.() === 0,
  sysctl(name) {
    try {
      return readFileSync(`/proc/sys/${name.replace(/\./g, "/")}`, "utf8").trim();
    } catch {
      return null;
    }
  },
  async sudo() {
    const r = await execa("sudo", ["-n", "true"], { reject: false, timeout: 10_000 });
    return r.exitCode === 0;
  },
  async setSysctl(name, value) {
    const r = await execa("sudo", ["-n", "sysctl", "-w", `${name}=${value}`], {
      reject: false,
      timeout: 10_000,
    });
    return r.exitCode === 0;
  },
  log,
});

/** Resolves when boxes can be made here; throws UserNamespaceError with the fix otherwise. */
export async function ensureUserNamespaces(host: UsernsHost): Promise<"root" | "open" | "lifted"> {
  // As root, bwrap makes its namespaces with its own privileges and drops to the box user.
  if (host.isRoot) return "root";
  const blocking = RESTRICTIONS.filter((r) => {
    const value = host.sysctl(r.sysctl);
    return value !== null && r.blocks(value);
  });
  if (blocking.length === 0) return "open";
  const only = blocking.length === 1 && blocking[0]?.sysctl === APPARMOR_SYSCTL;
  if (only && (await host.sudo()) && (await host.setSysctl(APPARMOR_SYSCTL, "0"))) {
    host.log(
      `forgechain: set ${APPARMOR_SYSCTL}=0 with sudo — this runner's AppArmor restricts unprivileged user namespaces, which the sandbox boxes need`,
    );
    return "lifted";
  }
  const fix = only
    ? `add a step before forgechain: run: sudo sysctl -w ${APPARMOR_SYSCTL}=0`
    : `allow unprivileged user namespaces on this runner (${blocking.map((b) => b.sysctl).join(", ")}), or run the job on a runner that allows them`;
  throw new UserNamespaceError(
    `this runner forbids unprivileged user namespaces (${blocking
      .map((b) => `${b.sysctl}=${host.sysctl(b.sysctl)}`)
      .join(", ")}), and forgechain's sandbox boxes need them: ${fix}`,
  );
}
