/**
 * GitHub's text limits. The check run docs say "65535 characters", but the API counts UTF-8
 * bytes ("summary exceeds a maximum bytesize of 65535"), so we cut by bytes — which also keeps
 * us under any character count.
 */
export const CHECK_TEXT_MAX_BYTES = 65_535;
/** Issue/PR comment and PR body limit (65 536 characters); bytes again, to be safe. */
export const COMMENT_MAX_BYTES = 65_536;

/**
 * Cut `text` to at most `maxBytes` UTF-8 bytes, ending with a visible note when cut. Never
 * splits a character (no lone surrogate, no partial UTF-8 sequence).
 */
export function truncateUtf8(text: string, maxBytes: number, what = "text"): string {
  const total = Buffer.byteLength(text, "utf8");
  if (total <= maxBytes) return text;
  const note = (shown: number) =>
    `\n\n---\n_forgechain: ${what} truncated — ${shown} of ${total} bytes shown (GitHub's limit is ${maxBytes} bytes)._`;
  // The note's own length depends on the number in it; reserve for the widest number.
  const room = maxBytes - Buffer.byteLength(note(total), "utf8");
  if (room <= 0) return note(0).slice(0, maxBytes);
  let end = Math.min(text.length, room);
  while (end > 0 && Buffer.byteLength(text.slice(0, end), "utf8") > room) {
    // Step back by the overshoot (at least one code unit) — few iterations in practice.
    const over = Buffer.byteLength(text.slice(0, end), "utf8") - room;
    end -= Math.max(1, Math.floor(over / 4));
  }
  // Do not end between the two halves of a surrogate pair.
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  const head = text.slice(0, end);
  return `${head}${note(Buffer.byteLength(head, "utf8"))}`;
}
