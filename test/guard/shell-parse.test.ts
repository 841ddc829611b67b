// The fast path must give exactly what the parser gives, and the tree conversion must correct
// tree-sitter where its tree is not bash's view.
import { describe, expect, it } from "vitest";
import { decodeAnsiC } from "../../src/guard/ansi-c.js";
import { lazyBashParser } from "../../src/guard/bash-parser.js";
import { BraceOverflowError, expandBraces } from "../../src/guard/brace-expansion.js";
import { fastPathScript } from "../../src/guard/fast-path.js";
import type { ShellScript } from "../../src/guard/shell-script.js";
import { scriptFromTree } from "../../src/guard/shell-tree.js";
import { literalOf, plainWord, textOf } from "../../src/guard/shell-words.js";

const parser = lazyBashParser();

function parsed(source: string): Promise<ShellScript> {
  return parser.withTree(source, (root) => scriptFromTree(root, source, "/home/agent"));
}

function argvs(script: ShellScript): string[][] {
  return script.commands.map((c) => c.words.map((w) => textOf(w, "$")));
}

function assignments(script: ShellScript): string[] {
  return [...script.assignments, ...script.commands.flatMap((c) => c.assignments)].map(
    (a) => `${a.name}=${a.value ? textOf(a.value) : "()"}`,
  );
}

describe("fast path", () => {
  const plain = [
    "git status",
    "git  diff   HEAD~1".replace("~", ""), // `~` is outside the safe set
    "npm run build",
    "A=1 B=x:y git log -n 5",
    "ls -la src/guard",
    "X+=1",
    "export GLOBIGNORE=.",
    "printf %s a,b @x +y",
    "node bin/forge.js guard --role=builder",
  ];
  it.each(plain)("matches the parser: %s", async (command) => {
    const fast = fastPathScript(command);
    expect(fast).not.toBeNull();
    const tree = await parsed(command);
    expect(argvs(fast as ShellScript)).toEqual(argvs(tree));
    expect(assignments(fast as ShellScript).sort()).toEqual(assignments(tree).sort());
  });

  it("declines every character outside the safe set", () => {
    for (let code = 0; code < 0x250; code++) {
      const ch = String.fromCharCode(code);
      const safe = /[A-Za-z0-9 \-_./=:,@%+]/.test(ch);
      expect(fastPathScript(`echo a${ch}b`) === null, `char ${code}`).toBe(!safe);
    }
  });

  it.each(["time git push", "coproc git push", "if true"])(
    "leaves reserved words to the parser: %s",
    (command) => {
      expect(fastPathScript(command)).toBeNull();
    },
  );
});

describe("tree conversion", () => {
  it("joins touching nodes into one word", async () => {
    expect(argvs(await parsed(`cat .e"nv" $"x"y 'a'b`))).toEqual([["cat", ".env", "xy", "ab"]]);
  });
  it("moves words after a redirection back into argv", async () => {
    expect(argvs(await parsed("git a >o b 2>e c"))).toEqual([["git", "a", "b", "c"]]);
  });
  it("processes escapes the way bash does", async () => {
    const script = await parsed(`echo g\\it "a\\"b\\$c\\n" $'\\x41\\t' a\\\nb`);
    expect(argvs(script)).toEqual([["echo", "git", 'a"b$c\\n', "A\t", "ab"]]);
  });
  it("marks run-time parts", async () => {
    const cmd = (await parsed(`echo "$HOME/x" $(date) \${a:-b}`)).commands.find(
      (c) => c.words[0] && textOf(c.words[0]) === "echo",
    );
    expect(cmd?.words.map((w) => literalOf(w))).toEqual(["echo", null, null, null]);
  });
  it("expands tilde to HOME", async () => {
    expect(argvs(await parsed("ls ~/x ~ '~'"))).toEqual([
      ["ls", "/home/agent/x", "/home/agent", "~"],
    ]);
  });
  it("collects heredoc bodies and nested commands", async () => {
    const script = await parsed("cat <<EOF\nhello $(whoami) there\nEOF");
    expect(script.heredocs.join("")).toContain("hello");
    expect(argvs(script)).toContainEqual(["whoami"]);
  });
  it("refuses ERROR and MISSING nodes", async () => {
    await expect(parsed("echo 'open")).rejects.toThrow(/syntax error/);
    await expect(parsed("if true; then echo")).rejects.toThrow(/syntax error/);
    await expect(parsed("echo $(")).rejects.toThrow(/syntax error/);
  });
  it("handles non-ASCII text (indices are UTF-16)", async () => {
    expect(argvs(await parsed('echo é😀 "ü"x'))).toEqual([["echo", "é😀", "üx"]]);
  });
});

describe("brace expansion", () => {
  const expand = (s: string) => expandBraces(plainWord(s)).map((w) => textOf(w));
  it("expands lists, nested lists and sequences", () => {
    expect(expand("a{b,c}d")).toEqual(["abd", "acd"]);
    expect(expand("{a,b{1,2}}")).toEqual(["a", "b1", "b2"]);
    expect(expand("x{1..3}")).toEqual(["x1", "x2", "x3"]);
    expect(expand("{a..c}")).toEqual(["a", "b", "c"]);
    expect(expand("{01..03}")).toEqual(["01", "02", "03"]);
  });
  it("leaves non-expansions alone", () => {
    expect(expand("{}")).toEqual(["{}"]);
    expect(expand("{a}")).toEqual(["{a}"]);
    expect(expand("a{b")).toEqual(["a{b"]);
  });
  it("refuses huge expansions", () => {
    expect(() => expand("{1..100000}")).toThrow(BraceOverflowError);
    expect(() => expand("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toThrow(
      BraceOverflowError,
    );
  });
});

describe("ANSI-C strings", () => {
  it("decodes bash's escapes", () => {
    expect(decodeAnsiC("\\x2eenv")).toBe(".env");
    expect(decodeAnsiC("\\056env")).toBe(".env");
    expect(decodeAnsiC("\\u002eenv")).toBe(".env");
    expect(decodeAnsiC("a\\tb\\\\c\\'d")).toBe("a\tb\\c'd");
    expect(decodeAnsiC("cut\\0here")).toBe("cut");
    expect(decodeAnsiC("\\q")).toBe("\\q");
  });
});
