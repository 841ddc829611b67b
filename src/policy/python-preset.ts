/**
 * The Python preset, made for a stock Debian/Ubuntu host (issue #13):
 * - `python3`, never `python` (Debian has no `python` command);
 * - never the system interpreter (PEP 668 refuses to install into it): the run owns a virtual
 *   environment in the workspace, `.venv`, and every later command runs `.venv/bin/python`;
 * - offline first: `--system-site-packages` lets the venv see the distribution's setuptools
 *   and pytest (Debian's python3-setuptools, python3-pytest), and a setuptools build runs
 *   with `--no-build-isolation`, so a project whose dependencies the system provides (or that
 *   has none) installs with no package index. A dependency the system lacks, or another
 *   build backend (hatchling, poetry-core, flit), needs the index as usual: pip fetches it,
 *   and where there is no network the setup fails naming the package;
 * - tests run with pytest when the project uses it, otherwise with unittest discovery.
 * A project managed by uv (uv.lock) keeps uv's own environment and commands.
 */
import type { ControlSpec } from "./forge-config-schema.js";

/** The interpreter of the run's virtual environment, relative to the repository root. */
export const VENV_PYTHON = ".venv/bin/python";

const PIP = `${VENV_PYTHON} -m pip install --disable-pip-version-check`;

/** Build requirements the distribution's setuptools satisfies without an index. */
const OFFLINE_BUILD_REQUIRES = new Set(["setuptools", "wheel"]);

export function pythonPreset(
  rootFiles: readonly string[],
  rootTexts: Readonly<Record<string, string>>,
): { setup: string[]; controls: Record<string, ControlSpec> } {
  const has = (name: string) => rootFiles.includes(name);
  if (has("uv.lock")) {
    return { setup: ["uv sync"], controls: { test: { run: "uv run pytest" } } };
  }
  const pyproject = rootTexts["pyproject.toml"];
  const setup = ["python3 -m venv --system-site-packages .venv"];
  if (has("requirements.txt")) setup.push(`${PIP} -r requirements.txt`);
  if (has("setup.py") || (pyproject !== undefined && declaresPackage(pyproject))) {
    const isolation = offlineBuild(has("setup.py"), pyproject) ? " --no-build-isolation" : "";
    setup.push(`${PIP}${isolation} -e .`);
  }
  return { setup, controls: { test: { run: testCommand(has, rootTexts) } } };
}

/** pytest when the project says it uses it; else unittest discovery in its test folder. */
function testCommand(
  has: (name: string) => boolean,
  texts: Readonly<Record<string, string>>,
): string {
  if (usesPytest(has, texts)) return `${VENV_PYTHON} -m pytest`;
  // Discovery from the root only enters folders with an __init__.py; a tests/ folder
  // without one is found when it is the start directory.
  if (has("tests")) return `${VENV_PYTHON} -m unittest discover -s tests`;
  if (has("test")) return `${VENV_PYTHON} -m unittest discover -s test`;
  return `${VENV_PYTHON} -m unittest`;
}

function usesPytest(
  has: (name: string) => boolean,
  texts: Readonly<Record<string, string>>,
): boolean {
  if (has("pytest.ini") || has("conftest.py")) return true;
  const pyproject = texts["pyproject.toml"] ?? "";
  // `[tool.pytest.ini_options]`, or "pytest…" in a dependency list (pytest-cov implies it).
  if (/^\s*\[tool\.pytest/m.test(pyproject) || /["']pytest\b/.test(pyproject)) return true;
  if (/^\s*\[tool:pytest\]/m.test(texts["setup.cfg"] ?? "")) return true;
  if (/^\s*pytest\b/m.test(texts["setup.cfg"] ?? "")) return true; // an extras list entry
  if (/^\s*\[pytest\]/m.test(texts["tox.ini"] ?? "")) return true;
  return Object.entries(texts).some(
    ([name, text]) => /requirements/.test(name) && /^\s*pytest\b/m.test(text),
  );
}

/** A pyproject.toml that describes something pip can install (not only tool settings). */
function declaresPackage(pyproject: string): boolean {
  return /^\s*\[(project|build-system)\]/m.test(pyproject);
}

/**
 * Can the build run on the distribution's setuptools, with no index? True for setup.py and
 * for a pyproject whose backend is setuptools (named, or the legacy default when absent)
 * and whose build requirements are setuptools and wheel only.
 */
function offlineBuild(setupPy: boolean, pyproject: string | undefined): boolean {
  if (pyproject === undefined) return setupPy;
  const section = tomlSection(pyproject, "build-system");
  if (section === null) return true;
  const backend = /^\s*build-backend\s*=\s*["']([^"']+)["']/m.exec(section)?.[1];
  if (backend !== undefined && !backend.startsWith("setuptools.build_meta")) return false;
  const requires = /^\s*requires\s*=\s*\[([^\]]*)\]/m.exec(section)?.[1] ?? "";
  const names = [...requires.matchAll(/["']\s*([A-Za-z0-9_.-]+)/g)].map((m) =>
    (m[1] ?? "").toLowerCase(),
  );
  return names.every((name) => OFFLINE_BUILD_REQUIRES.has(name));
}

/** The text of a `[name]` table up to the next table header, or null when there is none. */
function tomlSection(text: string, name: string): string | null {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.trim() === `[${name}]`);
  if (start < 0) return null;
  const end = lines.findIndex((l, i) => i > start && /^\s*\[/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}
