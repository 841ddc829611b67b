// The toolbox is what runs the harness inside the box. A bwrap/worktree box has no image: the
// toolbox is the host itself, identified by OS, architecture and C library (a musl userland
// cannot run glibc-built harness binaries, and the reverse).
import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { SYSTEM_ROOTS } from "./host-view.js";
import { isWithin } from "./paths.js";

export interface Toolbox {
  os: string;
  arch: string;
  libc: "glibc" | "musl" | "unknown";
  libcVersion?: string;
}

export function detectToolbox(): Toolbox {
  const base = { os: process.platform, arch: process.arch };
  if (process.platform !== "linux") return { ...base, libc: "unknown" };
  // Node's own report names the glibc it runs on; absent on musl builds.
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } })
    ?.header;
  if (header?.glibcVersionRuntime) {
    return { ...base, libc: "glibc", libcVersion: header.glibcVersionRuntime };
  }
  return { ...base, ...libcFromLdd() };
}

/** `ldd --version` prints "GLIBC 2.36" on glibc and "musl libc … Version 1.2.4" on musl. */
export function libcFromLdd(text?: string): Pick<Toolbox, "libc" | "libcVersion"> {
  let out = text;
  if (out === undefined) {
    try {
      out = execFileSync("ldd", ["--version"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      // musl's ldd exits 1 and writes its banner to stderr.
      const e = error as { stdout?: string; stderr?: string };
      out = `${e.stdout ?? ""}${e.stderr ?? ""}`;
    }
  }
  if (/musl/i.test(out)) {
    const v = /Version\s+([\d.]+)/i.exec(out)?.[1];
    return v ? { libc: "musl", libcVersion: v } : { libc: "musl" };
  }
  const g = /(?:GLIBC|GNU libc)[^\d]*([\d.]+)/i.exec(out)?.[1];
  if (g) return { libc: "glibc", libcVersion: g };
  return { libc: "unknown" };
}

export function toolboxFact(t: Toolbox): string {
  return `${t.os}/${t.arch}/${t.libc}${t.libcVersion ? `-${t.libcVersion}` : ""}`;
}

/**
 * What a box runs from forgechain's install root, and nothing more: the hook and control
 * launchers (bin/forge.js, bin/forge-guard.cjs), the bundles they load (dist/guard*.cjs,
 * stop-verify.js, scan-secrets.js), the packages those load by path (tree-sitter's wasm) and
 * the claude binary (node_modules), and package.json (it makes bin/forge.js and the .js bundles
 * ES modules). settings/, schemas/, profiles/, roles/ and skills/ are read by the runner on the
 * host; a step gets its own copies. The install root's `.env` is never among them.
 */
export const TOOLBOX_ENTRIES = ["bin", "dist", "node_modules", "package.json"] as const;

/**
 * The host paths a box needs to run forgechain's tools: the TOOLBOX_ENTRIES the install root
 * has, and node's install prefix unless the system view already shows it (/usr/bin/node).
 */
export function toolboxPaths(installRoot: string, execPath = process.execPath): string[] {
  const root = resolve(installRoot);
  const paths: string[] = TOOLBOX_ENTRIES.map((e) => join(root, e)).filter((p) => existsSync(p));
  const node = existsSync(execPath) ? realpathSync(execPath) : resolve(execPath);
  if (SYSTEM_ROOTS.some((r) => isWithin(node, r))) return paths;
  const prefix = dirname(dirname(node));
  // A node at /<dir>/node has "/" for a prefix, which would show the whole host: its dir then.
  paths.push(prefix === "/" ? dirname(node) : prefix);
  return paths;
}
