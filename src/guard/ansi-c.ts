// Decodes the body of a bash ANSI-C string `$'…'` (escapes as in bash's manual, "ANSI-C
// Quoting"). `$'\x2eenv'` is `.env`, so the guard must see the decoded value.

const SIMPLE: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

function readDigits(body: string, from: number, max: number, re: RegExp): string {
  let s = "";
  for (let i = from; i < body.length && s.length < max; i++) {
    const c = body[i] ?? "";
    if (!re.test(c)) break;
    s += c;
  }
  return s;
}

export function decodeAnsiC(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? "";
    if (c !== "\\" || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const n = body[i + 1] ?? "";
    const simple = SIMPLE[n];
    if (simple !== undefined) {
      out += simple;
      i++;
    } else if (/[0-7]/.test(n)) {
      const digits = readDigits(body, i + 1, 3, /[0-7]/);
      out += String.fromCharCode(Number.parseInt(digits, 8) & 0xff);
      i += digits.length;
    } else if (n === "x" || n === "u" || n === "U") {
      const max = n === "x" ? 2 : n === "u" ? 4 : 8;
      const digits = readDigits(body, i + 2, max, /[0-9a-fA-F]/);
      if (digits.length === 0) {
        out += `\\${n}`;
      } else {
        const code = Number.parseInt(digits, 16);
        out += code <= 0x10ffff ? String.fromCodePoint(code) : "\ufffd";
      }
      i += 1 + digits.length;
    } else if (n === "c" && i + 2 < body.length) {
      out += String.fromCharCode((body.charCodeAt(i + 2) & 0x1f) >>> 0);
      i += 2;
    } else {
      out += `\\${n}`; // unknown escape: bash keeps the backslash
      i++;
    }
  }
  // bash stops an ANSI-C string at a NUL byte
  const nul = out.indexOf("\0");
  return nul >= 0 ? out.slice(0, nul) : out;
}
