// Reading a file an agent could write (in its HOME), on the host, after its box has ended. The
// agent decides what is at that path: a link to any file the runner may read, a FIFO (a plain
// read waits for a writer forever), /dev/zero behind a link (a read that never ends). So the
// file is opened without following a link and without blocking, must be a regular file, and is
// read up to a limit.
import { constants } from "node:fs";
import { open } from "node:fs/promises";

export type AgentFile =
  | { kind: "absent" }
  | { kind: "file"; text: string }
  | { kind: "refused"; why: string };

export async function readAgentFile(path: string, maxBytes: number): Promise<AgentFile> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "absent" };
    // ELOOP: the last component is a link.
    return {
      kind: "refused",
      why: code === "ELOOP" ? "it is a link" : `it cannot be opened (${code})`,
    };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { kind: "refused", why: "it is not a regular file" };
    if (st.size > maxBytes) return { kind: "refused", why: `it is larger than ${maxBytes} bytes` };
    const buf = Buffer.alloc(Math.min(st.size, maxBytes));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return { kind: "file", text: buf.subarray(0, bytesRead).toString("utf8") };
  } finally {
    await handle.close();
  }
}
