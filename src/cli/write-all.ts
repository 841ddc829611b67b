import { writeSync } from "node:fs";

/** Writes all of `text` to `fd` (a short write on a pipe is continued, never dropped). */
export function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, "utf8");
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}
