// What the host's own package-manager configuration says about registries (R4.6), for the
// setup phase's allowlist (egressAllowlists in src/policy/egress-policy.ts) and for the setup
// box's environment (registryEnv), which sees neither the host's home nor its variables.
//
// Only the host's and the deployment's configuration is read: the environment, the user's
// files under HOME, the system's (/etc, npm's global npmrc). Never a file of a repository — a
// committed .npmrc or .cargo/config.toml must not choose what the proxy lets through. Reading
// never fails a run: a file that is missing or unreadable leaves that manager's public
// registries, and a registry the box then needs but cannot reach is refused by name.
// Credentials in a registry URL are dropped: they never enter a box.
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { HostRegistries, RegistryConfig } from "../policy/egress-registries.js";
import {
  parseEnvFile,
  parseIni,
  parseTomlStrings,
  parseYarnrc,
} from "../policy/registry-config-text.js";

type Env = Readonly<Record<string, string | undefined>>;

const MAX_FILE = 256 * 1024;
const cache = new Map<string, Promise<HostRegistries>>();

/** Read once per process for the same relevant environment (a run reads it per phase). */
export function readHostRegistries(env: Env): Promise<HostRegistries> {
  const key = JSON.stringify(
    Object.entries(env)
      .filter(([k]) => /^(HOME|XDG_CONFIG_(HOME|DIRS)|npm_config_|PIP_|YARN_|CARGO_|GO)/i.test(k))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  let found = cache.get(key);
  if (!found) {
    found = readAll(env);
    cache.set(key, found);
  }
  return found;
}

async function readAll(env: Env): Promise<HostRegistries> {
  const home = env.HOME || homedir();
  const readers: Array<[keyof HostRegistries, () => Promise<RegistryConfig | undefined>]> = [
    ["npm", () => npm(env, home)],
    ["yarn", () => yarn(env, home)],
    ["pip", () => pip(env, home)],
    ["cargo", () => cargo(env, home)],
    ["goproxy", () => go(env, home, "GOPROXY")],
    ["gosumdb", () => go(env, home, "GOSUMDB")],
  ];
  const out: HostRegistries = {};
  await Promise.all(
    readers.map(async ([source, read]) => {
      const config = await read().catch(() => undefined);
      if (config) out[source] = config;
    }),
  );
  return out;
}

async function npm(env: Env, home: string): Promise<RegistryConfig | undefined> {
  const fromEnv = envValue(env, "npm_config_registry");
  const userPath = envValue(env, "npm_config_userconfig") ?? join(home, ".npmrc");
  const prefix = envValue(env, "npm_config_prefix") ?? dirname(dirname(process.execPath));
  const globalPath = envValue(env, "npm_config_globalconfig") ?? join(prefix, "etc", "npmrc");
  const files = (await Promise.all([userPath, globalPath].map(readText))).map(
    (t) => parseIni(t ?? "")[""] ?? {},
  );
  const registry = fromEnv ?? files.map((f) => f.registry).find(Boolean);
  const scoped = files.flatMap((f) =>
    Object.entries(f)
      .filter(([k]) => /^@[^:]+:registry$/.test(k))
      .map(([, v]) => expand(v, env)),
  );
  return configOf(registry ? [expand(registry, env)] : undefined, scoped, (urls) => ({
    npm_config_registry: urls[0] as string,
  }));
}

async function yarn(env: Env, home: string): Promise<RegistryConfig | undefined> {
  const [rc, yml] = await Promise.all([
    readText(join(home, ".yarnrc")),
    readText(join(home, ".yarnrc.yml")),
  ]);
  const berry = /^\s*npmRegistryServer:\s*["']?([^"'\s#]+)/m.exec(yml ?? "")?.[1];
  const registry =
    env.YARN_NPM_REGISTRY_SERVER || env.YARN_REGISTRY || berry || parseYarnrc(rc ?? "").registry;
  return configOf(registry ? [registry] : undefined, [], (urls) => ({
    YARN_REGISTRY: urls[0] as string,
    YARN_NPM_REGISTRY_SERVER: urls[0] as string,
  }));
}

async function pip(env: Env, home: string): Promise<RegistryConfig | undefined> {
  // pip's order: global, then user, then PIP_CONFIG_FILE; a later file wins, [install] over
  // [global], and the environment over every file.
  const xdgDirs = (env.XDG_CONFIG_DIRS || "/etc/xdg").split(":").filter(Boolean);
  const xdgHome = env.XDG_CONFIG_HOME || join(home, ".config");
  const paths =
    env.PIP_CONFIG_FILE === "/dev/null"
      ? []
      : [
          ...xdgDirs.map((d) => join(d, "pip", "pip.conf")),
          "/etc/pip.conf",
          join(home, ".pip", "pip.conf"),
          join(xdgHome, "pip", "pip.conf"),
          ...(env.PIP_CONFIG_FILE ? [env.PIP_CONFIG_FILE] : []),
        ];
  let index: string | undefined;
  let extra: string | undefined;
  for (const text of await Promise.all(paths.map(readText))) {
    const ini = parseIni(text ?? "");
    for (const section of [ini.global ?? {}, ini.install ?? {}]) {
      index = section["index-url"] ?? section.index_url ?? index;
      extra = section["extra-index-url"] ?? section.extra_index_url ?? extra;
    }
  }
  index = env.PIP_INDEX_URL || index;
  extra = env.PIP_EXTRA_INDEX_URL || extra;
  const extras = (extra ?? "").split(/\s+/).filter(Boolean);
  const config = configOf(index ? [index] : undefined, extras, (urls) => ({
    PIP_INDEX_URL: urls[0] as string,
  }));
  if (config && (config.extra ?? []).length > 0) {
    config.env = { ...config.env, PIP_EXTRA_INDEX_URL: (config.extra ?? []).join(" ") };
  }
  return config;
}

async function cargo(env: Env, home: string): Promise<RegistryConfig | undefined> {
  const dir = env.CARGO_HOME || join(home, ".cargo");
  const text = (await readText(join(dir, "config.toml"))) ?? (await readText(join(dir, "config")));
  const toml = parseTomlStrings(text ?? "");
  // crates-io replaced by another source (a mirror, a vendored directory), maybe in a chain.
  let replace: string[] | undefined;
  let name = toml["source.crates-io.replace-with"];
  for (let hops = 0; name && hops < 10; hops++) {
    const registry = toml[`source.${name}.registry`];
    if (registry) {
      replace = [registry];
      break;
    }
    if (toml[`source.${name}.directory`] || toml[`source.${name}.local-registry`]) {
      replace = [];
      break;
    }
    name = toml[`source.${name}.replace-with`];
  }
  const extra = [
    ...Object.entries(toml)
      .filter(([k]) => /^registries\.[^.]+\.index$/.test(k))
      .map(([, v]) => v),
    ...Object.entries(env)
      .filter(([k, v]) => /^CARGO_REGISTRIES_[A-Z0-9_]+_INDEX$/.test(k) && v)
      .map(([, v]) => v as string),
  ];
  // Cargo takes no source replacement from the environment: the box gets no variable.
  return configOf(replace, extra, () => ({}));
}

async function go(
  env: Env,
  home: string,
  name: "GOPROXY" | "GOSUMDB",
): Promise<RegistryConfig | undefined> {
  let value = env[name];
  if (value === undefined && env.GOENV !== "off") {
    const file = env.GOENV || join(env.XDG_CONFIG_HOME || join(home, ".config"), "go", "env");
    value = parseEnvFile((await readText(file)) ?? "")[name];
  }
  if (value === undefined || value === "") return undefined;
  const urls =
    name === "GOPROXY"
      ? value.split(/[,|]/).filter((p) => p !== "" && p !== "direct" && p !== "off")
      : value === "off"
        ? []
        : [sumdbUrl(value)];
  const config = configOf(urls, [], () => ({}));
  // The variable as the host has it (a sumdb's key, `direct`, `|` included), credentials dropped.
  if (config) config.env = { [name]: value.replace(/[^,|\s]+/g, withoutCredentials) };
  return config;
}

/** `sum.golang.google.cn`, `name+key`, `name+key https://url` → the URL the go command asks. */
function sumdbUrl(value: string): string {
  const [name, url] = value.trim().split(/\s+/);
  return url ?? `https://${(name ?? "").split("+")[0]}`;
}

/** The source's answer with credentials dropped; undefined when it set nothing. */
function configOf(
  replace: string[] | undefined,
  extra: string[],
  toEnv: (urls: string[]) => Record<string, string>,
): RegistryConfig | undefined {
  if (replace === undefined && extra.length === 0) return undefined;
  const clean = (list: string[]) => list.map(withoutCredentials).filter((u) => u !== "");
  const config: RegistryConfig = {};
  if (replace !== undefined) {
    config.replace = clean(replace);
    if (config.replace.length > 0) config.env = toEnv(config.replace);
  }
  if (extra.length > 0) config.extra = clean(extra);
  return config;
}

function withoutCredentials(url: string): string {
  const text = url.trim();
  if (!text.includes("@")) return text;
  try {
    const parsed = new URL(text.replace(/^(?:sparse|registry)\+/, ""));
    parsed.username = "";
    parsed.password = "";
    const prefix = /^(?:sparse|registry)\+/.exec(text)?.[0] ?? "";
    return `${prefix}${parsed.toString()}`;
  } catch {
    return "";
  }
}

/** npm reads its variables whatever their case (npm_config_registry, NPM_CONFIG_REGISTRY). */
function envValue(env: Env, name: string): string | undefined {
  const key = Object.keys(env).find((k) => k.toLowerCase() === name);
  return key ? env[key] || undefined : undefined;
}

/** npmrc's `${VAR}` references, from the host's environment. */
function expand(value: string, env: Env): string {
  return value.replace(/\$\{([^}]+)\}/g, (_, name: string) => env[name] ?? "");
}

async function readText(path: string): Promise<string | null> {
  try {
    const text = await readFile(path, "utf8");
    return text.length > MAX_FILE ? null : text;
  } catch {
    return null;
  }
}
