// No container engine runs on this machine (the docker client answers, nothing starts): the
// container box is tested on its argv only.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBox, ownWorkDeclared } from "../../src/boxes/create-box.js";
import { BoxRefusedError } from "../../src/boxes/types.js";

const cmd = {
  command: "claude",
  args: ["-p", "--settings", "/runs/r1/home/settings.json", "--", "go"],
  cwd: "/runs/r1/ws/sub",
  env: { PATH: "/usr/bin", HOME: "/runs/r1/home", ANTHROPIC_API_KEY: "fake-key-value" },
};

describe("container box (argv only)", () => {
  const opts = {
    workspace: "/runs/r1/ws",
    home: "/runs/r1/home",
    allowNetwork: false,
    image: "ghcr.io/acme/app:1",
    cpus: 2,
    memoryMb: 2048,
  };

  it("runs the project's image with CPU and memory limits, no network, workspace and HOME mounted", () => {
    const w = createBox("container", opts).wrap(cmd);
    expect(w.command).toBe("docker");
    const a = w.args.join(" ");
    expect(w.args.slice(0, 3)).toEqual(["run", "--rm", "--name"]);
    const name = w.args[3] ?? "";
    expect(name).toMatch(/^forge-box-[0-9a-f]{16}$/);
    // A kill reaches the container itself, not only the client.
    expect(w.stop).toEqual({ command: "docker", args: ["kill", name] });
    expect(createBox("container", opts).wrap(cmd).args[3]).not.toBe(name);
    expect(a).toContain("--cpus 2");
    expect(a).toContain("--memory 2048m");
    expect(a).toContain("--network none");
    expect(a).toContain("-v /runs/r1/ws:/workspace");
    expect(a).toContain("-v /runs/r1/home:/home/forge");
    expect(a).toContain("-w /workspace/sub");
    expect(a).toContain("--cap-drop ALL");
    expect(w.args.slice(w.args.indexOf("ghcr.io/acme/app:1"))).toEqual([
      "ghcr.io/acme/app:1",
      "claude",
      "-p",
      "--settings",
      "/home/forge/settings.json",
      "--",
      "go",
    ]);
  });

  it("mounts a workspace's .git/config read-only (a second layer: the host's git never reads it)", () => {
    const t = mkdtempSync(join(tmpdir(), "forge-container-"));
    try {
      const ws = join(t, "ws");
      execFileSync("git", ["init", "-q", ws]);
      const w = createBox("container", { ...opts, workspace: ws, home: t }).wrap({
        ...cmd,
        cwd: ws,
      });
      expect(w.args.join(" ")).toContain(`-v ${ws}/.git/config:/workspace/.git/config:ro`);
      // A plain directory has none to protect.
      expect(createBox("container", opts).wrap(cmd).args.join(" ")).not.toContain(".git/config");
    } finally {
      rmSync(t, { recursive: true, force: true });
    }
  });

  it("secrets travel as -e NAME (value from the client env), never on the argv", () => {
    const w = createBox("container", opts).wrap(cmd);
    expect(w.args.join(" ")).not.toContain("fake-key-value");
    expect(w.args).toContain("ANTHROPIC_API_KEY");
    expect(w.env.ANTHROPIC_API_KEY).toBe("fake-key-value");
    expect(w.env.HOME).toBe("/home/forge");
  });

  it("host network maps to the engine's bridge; podman works the same; the report says nothing ran", () => {
    const b = createBox("container", { ...opts, allowNetwork: true, engine: "podman" });
    const w = b.wrap(cmd);
    expect(w.command).toBe("podman");
    expect(w.args.join(" ")).toContain("--network bridge");
    expect(b.describe().network).toBe("host");
    expect(b.describe().notes.join(" ")).toMatch(/no container engine runs on this machine/);
  });

  it("refuses without an image", () => {
    expect(() => createBox("container", { ...opts, image: undefined })).toThrow(BoxRefusedError);
  });
});

describe("worktree box", () => {
  it("is refused unless the deployment declares FORGE_OWN_WORK, and the message names it", () => {
    let error: unknown;
    try {
      createBox("worktree", { workspace: "/w", home: "/h", allowNetwork: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BoxRefusedError);
    expect((error as BoxRefusedError).kind).toBe("worktree");
    expect((error as Error).message).toMatch(/FORGE_OWN_WORK/);
  });

  it("with FORGE_OWN_WORK it runs the command as is and says it isolates nothing", () => {
    const b = createBox("worktree", {
      workspace: "/w",
      home: "/h",
      allowNetwork: true,
      ownWork: true,
    });
    expect(b.wrap(cmd)).toEqual({ command: "claude", args: cmd.args, env: cmd.env, cwd: cmd.cwd });
    expect(b.describe().network).toBe("host");
    expect(b.describe().notes.join(" ")).toMatch(/no isolation/);
  });

  it("ownWorkDeclared reads FORGE_OWN_WORK", () => {
    expect(ownWorkDeclared({ FORGE_OWN_WORK: "1" })).toBe(true);
    expect(ownWorkDeclared({ FORGE_OWN_WORK: "true" })).toBe(true);
    expect(ownWorkDeclared({ FORGE_OWN_WORK: "0" })).toBe(false);
    expect(ownWorkDeclared({})).toBe(false);
  });
});

describe("createBox", () => {
  it("refuses an unknown kind with a typed error", () => {
    expect(() =>
      createBox("fargate" as "bwrap", { workspace: "/w", home: "/h", allowNetwork: false }),
    ).toThrow(BoxRefusedError);
  });
});
