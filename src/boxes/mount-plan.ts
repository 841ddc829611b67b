// bwrap mount arguments, built in order, with every parent directory made explicitly.
//
// Why the parents: bwrap creates a missing parent of a mount point itself, mode 0700 and owned
// by root (measured, bwrap 0.8). A box that runs as an unprivileged user could then not even
// reach its own workspace (/tmp/<run>/ws under a 0700 /tmp/<run>). `--dir` makes them 0755;
// on a directory that already exists (a bound /usr, a symlinked /lib) it changes nothing.
import { dirname } from "node:path";
import { isWithin } from "./paths.js";

export class MountPlan {
  readonly args: string[] = [];
  /** Directories known to exist in the box (made by `--dir`, or a mount point). */
  private readonly known = new Set<string>(["/"]);

  roBind(src: string, dest = src): this {
    return this.mount(["--ro-bind", src, dest], dest);
  }

  bind(src: string, dest = src): this {
    return this.mount(["--bind", src, dest], dest);
  }

  /** An empty tmpfs (mode 0755, or `perms` such as "1777"); read-only when asked. */
  tmpfs(path: string, opts: { perms?: string; readOnly?: boolean } = {}): this {
    const args = [...(opts.perms ? ["--perms", opts.perms] : []), "--tmpfs", path];
    if (opts.readOnly) args.push("--remount-ro", path);
    return this.mount(args, path);
  }

  symlink(target: string, path: string): this {
    this.parents(path);
    this.args.push("--symlink", target, path);
    this.forget(path);
    return this;
  }

  dev(path = "/dev"): this {
    return this.mount(["--dev", path], path);
  }

  proc(path = "/proc"): this {
    return this.mount(["--proc", path], path);
  }

  /** Arguments built elsewhere (the network seam) that mount at `mountsAt`. */
  raw(args: readonly string[], mountsAt: readonly string[] = []): this {
    for (const p of mountsAt) this.parents(p);
    this.args.push(...args);
    for (const p of mountsAt) this.forget(p);
    return this;
  }

  /** `--dir` for each ancestor of `path` not known to exist yet. */
  parents(path: string): void {
    const missing: string[] = [];
    for (let d = dirname(path); !this.known.has(d); d = dirname(d)) missing.unshift(d);
    for (const d of missing) {
      this.args.push("--dir", d);
      this.known.add(d);
    }
  }

  private mount(args: string[], dest: string): this {
    this.parents(dest);
    this.args.push(...args);
    this.forget(dest);
    // Nothing is ever mounted beneath a file, so a file here only ends a parents() walk early.
    this.known.add(dest);
    return this;
  }

  /** A mount at `path` covers whatever was made beneath it. */
  private forget(path: string): void {
    for (const d of this.known) if (d !== path && isWithin(d, path)) this.known.delete(d);
  }
}
