// User namespaces on an Actions runner: open, lifted with passwordless sudo (and said so), or a
// refusal naming the setting and the step to add.
import { describe, expect, it } from "vitest";
import {
  APPARMOR_SYSCTL,
  ensureUserNamespaces,
  realUsernsHost,
  UserNamespaceError,
  type UsernsHost,
} from "../../src/action/userns.js";

function host(sysctls: Record<string, string>, o: { root?: boolean; sudo?: boolean } = {}) {
  const lines: string[] = [];
  const set: string[] = [];
  const h: UsernsHost = {
    isRoot: o.root ?? false,
    sysctl: (name) => sysctls[name] ?? null,
    sudo: async () => o.sudo ?? false,
    setSysctl: async (name, value) => {
      set.push(`${name}=${value}`);
      sysctls[name] = value;
      return o.sudo ?? false;
    },
    log: (l) => lines.push(l),
  };
  return { h, lines, set };
}

describe("ensureUserNamespaces", () => {
  it("root, or nothing restricting them: boxes can be made", async () => {
    expect(await ensureUserNamespaces(host({ [APPARMOR_SYSCTL]: "1" }, { root: true }).h)).toBe(
      "root",
    );
    expect(await ensureUserNamespaces(host({ [APPARMOR_SYSCTL]: "0" }).h)).toBe("open");
    expect(await ensureUserNamespaces(host({}).h)).toBe("open");
  });

  it("Ubuntu 24.04's AppArmor restriction with passwordless sudo: lifted, and the log says so", async () => {
    const t = host({ [APPARMOR_SYSCTL]: "1" }, { sudo: true });
    expect(await ensureUserNamespaces(t.h)).toBe("lifted");
    expect(t.set).toEqual([`${APPARMOR_SYSCTL}=0`]);
    expect(t.lines.join("\n")).toMatch(
      /set kernel\.apparmor_restrict_unprivileged_userns=0 with sudo/,
    );
  });

  it("without sudo: stops with the exact step to add", async () => {
    const t = host({ [APPARMOR_SYSCTL]: "1" });
    await expect(ensureUserNamespaces(t.h)).rejects.toThrow(UserNamespaceError);
    await expect(ensureUserNamespaces(t.h)).rejects.toThrow(
      "add a step before forgechain: run: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
    );
    expect(t.set).toEqual([]);
  });

  it("another restriction is never changed by the action: it names it", async () => {
    const t = host({ "kernel.unprivileged_userns_clone": "0" }, { sudo: true });
    await expect(ensureUserNamespaces(t.h)).rejects.toThrow(/kernel\.unprivileged_userns_clone=0/);
    expect(t.set).toEqual([]);
  });

  it("reads this machine's settings from /proc/sys", () => {
    const real = realUsernsHost(() => {});
    expect(real.sysctl("kernel.ostype")).toBe("Linux");
    expect(real.sysctl("kernel.no_such_setting_here")).toBeNull();
  });
});
