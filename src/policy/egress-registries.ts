/**
 * Which package registries the setup phase may reach. A package manager's registries are the
 * host's own configuration when it sets them (a mirror, a company index), else the public
 * defaults. The reading is an adapter's (src/runner/host-registries.ts); here is only what the
 * answers mean.
 */
import {
  canonicalHostEntry,
  DEFAULT_EGRESS_PORT,
  formatHostEntry,
  parseHostEntry,
} from "./egress-entry.js";
import type { Stack } from "./forge-config-schema.js";

export const PACKAGE_MANAGERS = ["npm", "yarn", "pnpm", "pip", "cargo", "go"] as const;
export type PackageManager = (typeof PACKAGE_MANAGERS)[number];

/** Where a manager's hosts come from: one configuration each (go has two: modules and sums). */
export const REGISTRY_SOURCES = ["npm", "yarn", "pip", "cargo", "goproxy", "gosumdb"] as const;
export type RegistrySource = (typeof REGISTRY_SOURCES)[number];

/** What one source of the host's configuration says. */
export interface RegistryConfig {
  /**
   * Set: these replace the public defaults — npm's `registry`, pip's `index-url`, cargo's
   * replacement of crates-io, GOPROXY, GOSUMDB. An empty list is a real answer
   * (GOPROXY=direct, GOSUMDB=off: nothing to reach).
   */
  replace?: string[];
  /** Used besides them: npm's scoped registries, pip's extra-index-url, cargo's registries. */
  extra?: string[];
  /**
   * Variables that make the manager in the setup box use exactly these registries (the box
   * sees neither the host's home nor its environment). Never holds a credential.
   */
  env?: Record<string, string>;
}

/** What the host's own configuration says, per source; absent: the public defaults. */
export type HostRegistries = Partial<Record<RegistrySource, RegistryConfig>>;

/** The public registries each source uses when the host sets nothing. */
export const PUBLIC_REGISTRIES: Readonly<Record<RegistrySource, readonly string[]>> = {
  npm: ["registry.npmjs.org"],
  yarn: ["registry.yarnpkg.com", "registry.npmjs.org"],
  pip: ["pypi.org", "files.pythonhosted.org"],
  cargo: ["index.crates.io", "static.crates.io", "crates.io"],
  goproxy: ["proxy.golang.org"],
  gosumdb: ["sum.golang.org"],
};

const SOURCES: Readonly<Record<PackageManager, readonly RegistrySource[]>> = {
  npm: ["npm"],
  yarn: ["yarn"],
  // pnpm reads npm's configuration (.npmrc, npm_config_registry).
  pnpm: ["npm"],
  pip: ["pip"],
  cargo: ["cargo"],
  go: ["goproxy", "gosumdb"],
};

/** The manager a stack's preset installs with when nothing else is known. */
export const STACK_MANAGER: Readonly<Record<Stack, PackageManager>> = {
  node: "npm",
  python: "pip",
  go: "go",
  rust: "cargo",
};

// Program names that install from a manager's registries. uv, poetry, pdm and pipenv use
// PyPI by default as pip does.
const PROGRAMS: Readonly<Record<string, PackageManager>> = {
  npm: "npm",
  yarn: "yarn",
  pnpm: "pnpm",
  pip: "pip",
  pip3: "pip",
  uv: "pip",
  poetry: "pip",
  pdm: "pip",
  pipenv: "pip",
  cargo: "cargo",
  go: "go",
};

/**
 * The managers a setup command line uses: every word whose last path part names one
 * (`npm ci`, `.venv/bin/python -m pip install …`, `cd web && yarn install`). Generous on
 * purpose — a word that only looks like a manager adds that manager's public registries, no
 * more; a manager missed here would fail setup naming the refused host.
 */
export function managersOfCommand(line: string): PackageManager[] {
  const found: PackageManager[] = [];
  for (const word of line.split(/[\s;&|()<>'"`=]+/)) {
    const manager = PROGRAMS[word.slice(word.lastIndexOf("/") + 1)];
    if (manager && !found.includes(manager)) found.push(manager);
  }
  return found;
}

/** The host entries (canonical text) one manager's installs reach on this host. */
export function registryEntries(manager: PackageManager, host: HostRegistries): string[] {
  const out: string[] = [];
  for (const source of SOURCES[manager]) {
    const config = host[source];
    // yarn 1 reads npm's `registry` when it has none of its own.
    const replace = config?.replace ?? (source === "yarn" ? host.npm?.replace : undefined);
    const chosen = replace ? replace.map(registryEntry) : [...PUBLIC_REGISTRIES[source]];
    for (const e of [...chosen, ...(config?.extra ?? []).map(registryEntry)]) {
      if (e && !out.includes(e)) out.push(e);
    }
  }
  return out;
}

/**
 * A registry URL (or bare host) as a host entry: `https://pypi.example.com/simple` →
 * `pypi.example.com`, `http://10.0.0.5:3141/root/pypi` → `10.0.0.5:3141`; cargo's `sparse+`
 * and `registry+` prefixes are dropped. Null for what needs no network (file:) or is not a
 * host (a local path, a scheme the proxy does not carry).
 */
export function registryEntry(urlOrHost: string): string | null {
  const text = urlOrHost.trim().replace(/^(?:sparse|registry|git)\+/, "");
  if (!text.includes("://")) {
    const parsed = parseHostEntry(text);
    return parsed.ok ? formatHostEntry(parsed.entry) : null;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const port = url.port ? Number(url.port) : url.protocol === "http:" ? 80 : DEFAULT_EGRESS_PORT;
  const parsed = parseHostEntry(
    formatHostEntry({ host: url.hostname.replace(/^\[|\]$/g, ""), port }),
  );
  return parsed.ok ? formatHostEntry(parsed.entry) : null;
}

/** The variables the setup box gets so its managers use the registries the allowlist names. */
export function registryEnv(host: HostRegistries): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of REGISTRY_SOURCES) Object.assign(env, host[source]?.env ?? {});
  return env;
}

/** Dedupe, keeping the first of each canonical entry. */
export function uniqueEntries(entries: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    const c = canonicalHostEntry(e);
    if (!out.includes(c)) out.push(c);
  }
  return out;
}
