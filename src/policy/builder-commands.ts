/**
 * The commands a run adds to the builder's allow list (issue #13): the exact commands of the
 * resolved `validate:` controls and of the stack preset (its install and test commands), and
 * the patterns the repository lists under `builder.allow`. Each is checked like a
 * builder.allow entry (builder-pattern.ts): a repository's entry that fails is a config
 * error; a control's command that fails is left out with a warning (the control still runs
 * in the box after the builder; only the builder cannot run it itself).
 */
import { checkBuilderPattern, normaliseCommand } from "./builder-pattern.js";
import { isBuiltinRun } from "./builtin-controls.js";
import type { ConfigIssue, Position } from "./issues.js";
import type { StackPreset } from "./presets.js";
import type {
  Origin,
  ResolvedComponent,
  ResolvedConfig,
  ResolvedControl,
} from "./resolved-config.js";

/** One command (or `*` pattern) the builder may run in this repository, and who said so. */
export interface BuilderCommand {
  pattern: string;
  origin: Origin;
  /** The key it came from: "builder.allow", "validate.test", "setup", … */
  from: string;
}

type Locate = (path: PropertyKey[]) => Position | undefined;

/** Config errors for the repository's `builder.allow` entries, each at its own line. */
export function builderAllowIssues(
  allow: readonly string[] | undefined,
  file: string,
  locate: Locate,
): ConfigIssue[] {
  return (allow ?? []).flatMap((entry, i): ConfigIssue[] => {
    const refusal = checkBuilderPattern(entry);
    if (!refusal) return [];
    return [
      {
        severity: "error",
        code: refusal.code,
        file,
        path: `builder.allow[${i}]`,
        ...(locate(["builder", "allow", i]) ?? { line: 1, column: 1 }),
        message: refusal.message,
        ...(refusal.expected ? { expected: refusal.expected } : {}),
        fix: refusal.fix,
      },
    ];
  });
}

/**
 * The simple commands of a shell line, split at `&&`, `||`, `;`, `|`, `&` and newlines
 * outside quotes. Each part is then checked on its own: Claude Code judges every part of a
 * compound command against the rules separately.
 */
export function splitCommandLine(text: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      current += ch;
      if (ch === "\\" && quote === '"' && i + 1 < text.length) current += text[++i];
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      current += ch;
    } else if (ch === "\\" && i + 1 < text.length) {
      current += ch + text[++i];
    } else if (";|&\n".includes(ch)) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts.map(normaliseCommand).filter((p) => p !== "");
}

export interface CollectInput {
  /** The repository's `builder.allow`, already validated. */
  repoAllow: readonly string[];
  /** Commands of controls and the preset: each split and checked. */
  commands: ReadonlyArray<{ command: string; origin: Origin; from: string; at?: Position }>;
  file: string;
}

/** The builder's extra commands, in order, without duplicates; warnings for left-out ones. */
export function collectBuilderCommands(input: CollectInput): {
  allow: BuilderCommand[];
  notices: ConfigIssue[];
} {
  const allow: BuilderCommand[] = [];
  const notices: ConfigIssue[] = [];
  const add = (c: BuilderCommand) => {
    if (!allow.some((a) => a.pattern === c.pattern)) allow.push(c);
  };
  for (const { command, origin, from, at } of input.commands) {
    if (isBuiltinRun(command.trim())) continue; // the runner runs it, not a shell
    for (const part of splitCommandLine(command)) {
      const refusal = checkBuilderPattern(part);
      if (!refusal) {
        add({ pattern: part, origin, from });
        continue;
      }
      notices.push({
        severity: "warning",
        code: "builder_command_left_out",
        file: input.file,
        path: from,
        ...(at ?? { line: 1, column: 1 }),
        message: `${from} runs ${JSON.stringify(part)}, which the builder may not run itself: ${reasonOnly(part, refusal.message)}`,
        fix: suggestion(part),
      });
    }
  }
  for (const pattern of input.repoAllow) {
    add({ pattern: normaliseCommand(pattern), origin: "repo", from: "builder.allow" });
  }
  return { allow, notices };
}

/** The cascade's part: every command the run adds to the builder's list, in order. */
export function resolveBuilderCommands(input: {
  file: string;
  preset: StackPreset | null;
  controls: Record<string, ResolvedControl>;
  components: Record<string, ResolvedComponent>;
  repoAllow: readonly string[];
  at: (path: PropertyKey[]) => Position;
}): { allow: BuilderCommand[]; notices: ConfigIssue[] } {
  const { preset } = input;
  const origin: Origin | null = preset ? `preset:${preset.stack}` : null;
  const fromPreset = origin
    ? [
        ...(preset?.setup ?? []).map((command) => ({ command, origin, from: "setup" })),
        ...Object.entries(preset?.controls ?? {}).map(([name, c]) => ({
          command: c.run,
          origin,
          from: `validate.${name}`,
        })),
      ]
    : [];
  const controls = Object.values(input.controls).map((c) => ({
    command: c.run,
    origin: c.origin,
    from: `validate.${c.name}`,
    ...(c.origin === "repo" ? { at: input.at(["validate", c.name, "run"]) } : {}),
  }));
  const components = Object.values(input.components).flatMap((comp) =>
    Object.values(comp.controls).map((c) => ({
      command: c.run,
      origin: c.origin,
      from: `components.${comp.dir}.validate.${c.name}`,
      at: input.at(["components", comp.dir, "validate", c.name, "run"]),
    })),
  );
  return collectBuilderCommands({
    file: input.file,
    repoAllow: input.repoAllow,
    commands: [...fromPreset, ...controls, ...components],
  });
}

/** A refusal's message without the pattern it starts with ("it contains …"). */
function reasonOnly(part: string, message: string): string {
  const quoted = JSON.stringify(part);
  if (!message.startsWith(quoted)) return message;
  const rest = message.slice(quoted.length).replace(/^:/, "").trim();
  return /^(contains|covers|names|starts|would|must|is)\b/.test(rest) ? `it ${rest}` : rest;
}

/** A builder.allow pattern that would cover `part`, when one passes the check. */
function suggestion(part: string): string {
  const words: string[] = [];
  for (const w of part.split(" ").slice(0, 3)) {
    if (!/^[A-Za-z0-9\-_./=:,@%+~]+$/.test(w)) break;
    words.push(w);
  }
  const pattern = `${words.join(" ")} *`;
  return words.length > 0 && checkBuilderPattern(pattern) === null
    ? `the control still runs after the builder; to let the builder run it too, add ${JSON.stringify(pattern)} under builder.allow`
    : "the control still runs after the builder; the builder cannot run it itself";
}

/** The patterns to add to the builder's settings (`Bash(<pattern>)` each). */
export function builderAllowPatterns(config: Pick<ResolvedConfig, "builder">): string[] {
  return config.builder.allow.map((c) => c.pattern);
}
