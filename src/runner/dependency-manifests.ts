// The files that decide what `setup:` installs. When the builder's change touches one, the
// setup's results no longer match the work (a new dependency, another version), so the
// controls' checkout runs the setup commands again instead of copying the run's results.
const MANIFESTS = new Set([
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "pipfile",
  "pipfile.lock",
  "poetry.lock",
  "uv.lock",
  "cargo.toml",
  "cargo.lock",
  "go.mod",
  "go.sum",
  "gemfile",
  "gemfile.lock",
]);

/** Whether `path` (repository-relative, at any depth) names a dependency manifest. */
export function isDependencyManifest(path: string): boolean {
  const name = (path.split("/").pop() ?? "").toLowerCase();
  return MANIFESTS.has(name) || /^requirements.*\.(txt|in)$/.test(name);
}
