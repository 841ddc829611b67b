// A fresh HOME per step: exactly the role's skills, the provider login if one is used, and
// git configured not to run hooks. Settings live OUTSIDE the HOME (HOME is writable inside
// the box; Claude Code re-reads settings files it watches, so an agent must not be able to
// rewrite its own rules).
import { chmod, copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type BoxUser, handToBox } from "../boxes/box-user.js";

export interface AgentHome {
  home: string;
}

export async function createAgentHome(opts: {
  home: string;
  /** Path of the user's Claude Code login to copy in (mode 0600), when no API key is used. */
  claudeCredentials?: string;
  /**
   * The box's user: the HOME and everything in it become its own (the box writes its HOME, and
   * only the owner reads the 0600 login). Whatever is added later must be handed over again
   * (handToBox) before the box starts.
   */
  user?: BoxUser;
}): Promise<AgentHome> {
  await rm(opts.home, { recursive: true, force: true });
  await mkdir(join(opts.home, ".claude"), { recursive: true, mode: 0o700 });
  await writeFile(
    join(opts.home, ".gitconfig"),
    [
      "[core]",
      "\thooksPath = /dev/null",
      "[user]",
      "\tname = forgechain builder",
      "\temail = forgechain@users.noreply.github.com",
      "[safe]",
      "\tdirectory = *",
      "",
    ].join("\n"),
  );
  if (opts.claudeCredentials) {
    const target = join(opts.home, ".claude", ".credentials.json");
    await copyFile(opts.claudeCredentials, target);
    await chmod(target, 0o600);
  }
  await handToBox(opts.home, opts.user);
  return { home: opts.home };
}
