// The toolbox is what runs the harness inside the box. A bwrap/worktree box has no image: the
// toolbox is the host itself, identified by OS, architecture and C library (a musl userland
// cannot run glibc-built harness binaries, and the reverse).
import { execFileSync } from "node:child_process";

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
