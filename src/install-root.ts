import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The directory that holds package.json, settings/, schemas/ and bin/. Works both from the
 * bundle in dist/ and from the TypeScript sources (tests run the sources through vitest).
 */
export function installRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "settings"))) return dir;
    dir = dirname(dir);
  }
  throw new Error("cannot locate the forgechain installation (package.json with settings/)");
}
