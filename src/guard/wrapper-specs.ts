// Programs that run another program given as their remaining arguments, with the options
// each one takes (from their man pages: GNU coreutils, util-linux, sudo, findutils).
import type { OptionSpec } from "./option-scan.js";

export interface WrapperSpec extends OptionSpec {
  /** Words between the options and the command (`timeout DURATION`, `flock FILE`). */
  readonly positional?: number;
  /** `NAME=VALUE` words before the command set the environment (env, sudo). */
  readonly assignments?: boolean;
}

export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: {
    flags: "i0v",
    valued: "uCS",
    longFlags: [
      "ignore-environment",
      "null",
      "debug",
      "block-signal",
      "default-signal",
      "ignore-signal",
      "list-signal-handling",
    ],
    longValued: ["unset", "chdir", "split-string"],
    assignments: true,
  },
  command: { flags: "pvV" },
  builtin: {},
  exec: { flags: "cl", valued: "a" },
  nohup: {},
  coproc: {},
  time: {
    flags: "pavq",
    valued: "fo",
    longFlags: ["portability", "append", "verbose", "quiet"],
    longValued: ["format", "output"],
  },
  nice: { valued: "n", longValued: ["adjustment"], numeric: true },
  timeout: {
    flags: "v",
    valued: "sk",
    longFlags: ["preserve-status", "foreground", "verbose"],
    longValued: ["signal", "kill-after"],
    positional: 1,
  },
  sudo: {
    flags: "AbEeHhiKklnPSsVv",
    valued: "ugpCDrtUTR",
    longFlags: [
      "preserve-env",
      "login",
      "shell",
      "stdin",
      "non-interactive",
      "background",
      "askpass",
      "edit",
      "set-home",
      "reset-timestamp",
      "remove-timestamp",
      "validate",
      "list",
      "version",
      "help",
      "preserve-groups",
    ],
    longValued: [
      "user",
      "group",
      "host",
      "prompt",
      "close-from",
      "chdir",
      "role",
      "type",
      "other-user",
      "command-timeout",
      "chroot",
    ],
    assignments: true,
  },
  doas: { flags: "ns", valued: "uC" },
  stdbuf: { valued: "ioe", longValued: ["input", "output", "error"] },
  setsid: { flags: "cfw", longFlags: ["ctty", "fork", "wait"] },
  ionice: { flags: "t", valued: "cn", longFlags: ["ignore"], longValued: ["class", "classdata"] },
  taskset: { flags: "ac", longFlags: ["all-tasks", "cpu-list"], positional: 1 },
  chroot: { longValued: ["userspec", "groups"], longFlags: ["skip-chdir"], positional: 1 },
  unbuffer: { flags: "p" },
  flock: {
    flags: "sxunoFv",
    valued: "wEc",
    longFlags: ["shared", "exclusive", "unlock", "nonblock", "close", "no-fork", "verbose"],
    longValued: ["timeout", "conflict-exit-code", "command"],
    positional: 1,
  },
  busybox: {},
};

export const XARGS: OptionSpec = {
  flags: "0oprtx",
  valued: "aEdILnPs",
  attached: "eil",
  longFlags: [
    "null",
    "open-tty",
    "interactive",
    "no-run-if-empty",
    "verbose",
    "exit",
    "show-limits",
    "replace",
    "eof",
    "max-lines",
  ],
  longValued: ["arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"],
};

/** Shells whose `-c` string is parsed as a script. */
export const SHELLS = new Set([
  "sh",
  "bash",
  "rbash",
  "dash",
  "zsh",
  "ksh",
  "mksh",
  "ash",
  "yash",
  "posh",
  "fish",
  "csh",
  "tcsh",
]);

/** bash options (`shopt -s`, `bash -O`) that change what a glob or a word means. */
export const UNSAFE_SHOPTS = new Set([
  "dotglob",
  "globstar",
  "nocaseglob",
  "extglob",
  "expand_aliases",
]);
