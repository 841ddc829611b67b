/**
 * Patterns we add on top of secretlint's preset, each for a gap measured in secretlint 12.0.0.
 * Every pattern is linear (no nested quantifiers) because it runs over whole diffs.
 */
export interface PatternMatch {
  ruleId: string;
  messageId: string;
  start: number;
  end: number;
  message: string;
}

/**
 * PEM private key blocks of any type. The preset's privatekey rule knows only RSA, DSA, EC,
 * OPENSSH and PGP headers (it misses `ENCRYPTED PRIVATE KEY`, PKCS#8 with other names) and
 * skips blocks whose body does not look like a real key (< 100 base64 chars, wrong magic) —
 * so a truncated key pasted into an agent's summary is not reported. We report a header
 * followed by at least MIN_BODY base64 characters, up to the matching END line or, when the
 * block is cut off, to the end of the base64 run.
 */
const HEADER = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;
const FOOTER = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;
// A cut-off body: base64 chunks of 16+ characters separated by whitespace or JSON-escaped
// newlines, plus RFC 1421 header lines. Ordinary prose after the key (short words) ends it.
// Greedy with nothing after it, so the engine never backtracks.
const BODY = /(?:(?:\s|\\[rn])*(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info):[^\n\\]*))*/y;
const MIN_BODY = 32;
const MAX_BLOCK = 20_000;

export function findPrivateKeyBlocks(text: string): PatternMatch[] {
  const found: PatternMatch[] = [];
  HEADER.lastIndex = 0;
  for (let header = HEADER.exec(text); header; header = HEADER.exec(text)) {
    const start = header.index;
    const bodyStart = start + header[0].length;
    FOOTER.lastIndex = bodyStart;
    const footer = FOOTER.exec(text);
    let bodyEnd: number;
    let end: number;
    if (footer && footer.index - bodyStart <= MAX_BLOCK) {
      bodyEnd = footer.index;
      end = footer.index + footer[0].length;
    } else {
      BODY.lastIndex = bodyStart;
      const body = BODY.exec(text);
      bodyEnd = Math.min(bodyStart + (body?.[0].length ?? 0), bodyStart + MAX_BLOCK);
      end = bodyEnd;
    }
    const body = text.slice(bodyStart, bodyEnd).replace(/\\n|[^A-Za-z0-9+/=]/g, "");
    if (body.length >= MIN_BODY) {
      found.push({
        ruleId: "forge-private-key",
        messageId: "PrivateKeyBlock",
        start,
        end,
        message: "found a PEM private key block",
      });
    }
    HEADER.lastIndex = Math.max(end, bodyStart);
  }
  return found;
}

/**
 * secretlint's AWS rule reports `aws_secret_access_key = "<40 chars>"` with a range that starts
 * at the key name and is only 40 characters long, so it stops inside the secret (measured:
 * range [0,40] for a 66-character match). Redacting that range would leave most of the secret
 * in clear. This re-matches the rule's own pattern at the reported start and returns the
 * end of the whole assignment.
 */
const AWS_SECRET =
  /["']?(?:AWS|aws|Aws)?_?(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)["']?\s*(?::|=>|=)\s*["']?[A-Za-z0-9/+=]{40}["']?/y;

export function awsSecretEnd(text: string, start: number): number | undefined {
  AWS_SECRET.lastIndex = start;
  const match = AWS_SECRET.exec(text);
  return match ? start + match[0].length : undefined;
}
