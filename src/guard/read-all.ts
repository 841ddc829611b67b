// Reading a whole stream with a size limit: shared by the guard, its server client and the
// server, which must not import the guard's rules to read a request.

/** Reads `stream` as UTF-8, refusing more than `limit` bytes. */
export async function readAll(
  stream: AsyncIterable<Buffer | string>,
  limit: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > limit) throw new Error(`stdin is larger than ${limit} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}
