// Where a canary must never turn up, and in which forms: the model's requests (what reached an
// agent) and the origin repository (what was pushed), searched for a value in plain text and
// in the encodings an attacker would use to get it past a plain-text scan.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { ModelServer } from "../../src/scripted-model/server.js";

/** An obviously fake, random secret value: `FORGE_CANARY_<label>_<hex>`. */
export function newCanary(label: string): string {
  return `FORGE_CANARY_${label}_${randomBytes(8).toString("hex")}`;
}

/** A fake Anthropic key of the real shape (never a working one): what the runner's env holds. */
export function fakeModelKey(): string {
  const body = randomBytes(70).toString("base64url").replace(/[-_]/g, "x").slice(0, 93);
  return `sk-ant-api03-${body}AA`;
}

/**
 * The forms a leaked `value` can take: plain, base64 and base64url (at all three byte
 * alignments, so a value in the middle of a longer encoded text is found too), hex in either
 * case, and percent-encoding of every byte.
 */
export function encodings(value: string): string[] {
  const out = new Set<string>([value]);
  const bytes = Buffer.from(value, "utf8");
  for (const shift of [0, 1, 2]) {
    const padded = Buffer.concat([Buffer.alloc(shift, 0x20), bytes]);
    // Drop the characters the leading pad and the unaligned tail influence.
    const skip = Math.ceil((shift * 4) / 3);
    const whole = Math.floor(padded.length / 3) * 4;
    for (const enc of ["base64", "base64url"] as const) {
      const text = padded.toString(enc).slice(skip, whole);
      if (text.length >= 16) out.add(text);
    }
  }
  const hex = bytes.toString("hex");
  out.add(hex);
  out.add(hex.toUpperCase());
  // Percent-encoding of every byte (URL-encoding leaves a key's characters as they are).
  out.add(hex.replace(/../g, "%$&"));
  out.add(hex.toUpperCase().replace(/../g, "%$&"));
  return [...out];
}

/** Every request the model server got, as one text (bodies as JSON, plus the URLs). */
export function requestText(server: ModelServer): string {
  return server.requests.map((r) => `${r.url}\n${JSON.stringify(r.body)}`).join("\n");
}

/** The encodings of `value` found in `text` (JSON escaping aside: canaries are plain ASCII). */
export function foundIn(text: string, value: string): string[] {
  return encodings(value).filter((form) => text.includes(form));
}

/** The tool calls whose results carried `value` (in any encoding), for assertion messages. */
export function leakingCalls(server: ModelServer, value: string): string[] {
  return server.toolResults
    .filter((t) => foundIn(t.content, value).length > 0)
    .map((t) => {
      const input = t.input ?? {};
      return `${t.name} ${String(input.command ?? input.file_path ?? JSON.stringify(input))}`;
    });
}

/** Every object the origin repository holds (reachable or not): whatever a push put there. */
export function originObjects(origin: string): string {
  return execFileSync("git", ["cat-file", "--batch-all-objects", "--batch", "--unordered"], {
    cwd: origin,
    encoding: "latin1",
    maxBuffer: 512 * 1024 * 1024,
  });
}

/** The forge/… branches in the origin (empty: nothing was pushed). */
export function forgeBranches(origin: string): string[] {
  return execFileSync("git", ["for-each-ref", "--format=%(refname:short)", "refs/heads/forge/"], {
    cwd: origin,
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
}
