// The Python preset on a stock Debian/Ubuntu host: python3 (never python), a virtual
// environment the run owns (never the system interpreter, PEP 668), pytest when the project
// uses it and unittest otherwise — and its commands really install and test a sample project
// with no network at all (Debian's python3-venv and python3-pytest, as .ci/run installs them).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/policy/cascade.js";
import { readConfigSource, resolveFromSource } from "../../src/policy/config-source.js";
import { stackPreset } from "../../src/policy/presets.js";
import { git, gitRunner } from "./helpers.js";

const PY = ".venv/bin/python";
const VENV = "python3 -m venv --system-site-packages .venv";
const PIP = `${PY} -m pip install --disable-pip-version-check`;

const SETUPTOOLS_PROJECT = `[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "greet"
version = "0.1.0"
`;

describe("the Python preset's commands", () => {
  it("a setuptools project tested with unittest", () => {
    const p = stackPreset("python", ["pyproject.toml", "src", "tests"], {
      "pyproject.toml": SETUPTOOLS_PROJECT,
    });
    expect(p.setup).toEqual([VENV, `${PIP} --no-build-isolation -e .`]);
    expect(p.controls.test?.run).toBe(`${PY} -m unittest discover -s tests`);
  });

  it.each([
    [
      "a [tool.pytest.ini_options] table",
      ["pyproject.toml"],
      { "pyproject.toml": `${SETUPTOOLS_PROJECT}\n[tool.pytest.ini_options]\naddopts = "-q"\n` },
    ],
    [
      "pytest in optional dependencies",
      ["pyproject.toml"],
      {
        "pyproject.toml": `${SETUPTOOLS_PROJECT}\n[project.optional-dependencies]\ntest = ["pytest>=7", "pytest-cov"]\n`,
      },
    ],
    ["a pytest.ini", ["pyproject.toml", "pytest.ini"], {}],
    ["a conftest.py", ["setup.py", "conftest.py"], {}],
    [
      "pytest in requirements-dev.txt",
      ["requirements.txt", "requirements-dev.txt"],
      { "requirements-dev.txt": "black\npytest==8.0\n" },
    ],
    [
      "[tool:pytest] in setup.cfg",
      ["setup.py", "setup.cfg"],
      { "setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\ntestpaths = tests\n" },
    ],
    [
      "a [pytest] section in tox.ini",
      ["setup.py", "tox.ini"],
      { "tox.ini": "[pytest]\naddopts = -q\n" },
    ],
  ] as const)("pytest when the project uses it: %s", (_what, files, texts) => {
    expect(stackPreset("python", files, texts).controls.test?.run).toBe(`${PY} -m pytest`);
  });

  it.each([
    [["pyproject.toml"], `${PY} -m unittest`],
    [["pyproject.toml", "test"], `${PY} -m unittest discover -s test`],
    [["requirements.txt", "tests"], `${PY} -m unittest discover -s tests`],
  ])("unittest otherwise: %j", (files, run) => {
    const texts = { "pyproject.toml": SETUPTOOLS_PROJECT, "requirements.txt": "requests\n" };
    expect(stackPreset("python", files, texts).controls.test?.run).toBe(run);
  });

  it("never python, never the system interpreter", () => {
    const shapes: Array<[string[], Record<string, string>]> = [
      [["pyproject.toml"], { "pyproject.toml": SETUPTOOLS_PROJECT }],
      [["requirements.txt"], {}],
      [["setup.py", "requirements.txt"], {}],
    ];
    for (const [files, texts] of shapes) {
      const p = stackPreset("python", files, texts);
      for (const command of [...p.setup, p.controls.test?.run ?? ""]) {
        expect(command).not.toMatch(/(^|\s)python(\s|$)/);
        expect(command).not.toMatch(/^pip|^python3 -m pip/);
      }
      expect(p.setup[0]).toBe(VENV);
    }
  });

  it("requirements.txt and the package itself are both installed", () => {
    const p = stackPreset("python", ["requirements.txt", "setup.py"], {});
    expect(p.setup).toEqual([
      VENV,
      `${PIP} -r requirements.txt`,
      `${PIP} --no-build-isolation -e .`,
    ]);
  });

  it("a pyproject holding only tool settings installs nothing but the venv", () => {
    const p = stackPreset("python", ["pyproject.toml"], {
      "pyproject.toml":
        '[tool.black]\nline-length = 100\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
    });
    expect(p.setup).toEqual([VENV]);
  });

  it.each([
    [
      "hatchling",
      '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n[project]\nname = "x"\n',
    ],
    [
      "setuptools-scm",
      '[build-system]\nrequires = ["setuptools>=64", "setuptools-scm>=8"]\nbuild-backend = "setuptools.build_meta"\n[project]\nname = "x"\n',
    ],
  ])("a build needing more than setuptools (%s) keeps pip's isolated build", (_b, text) => {
    const p = stackPreset("python", ["pyproject.toml"], { "pyproject.toml": text });
    expect(p.setup).toEqual([VENV, `${PIP} -e .`]);
  });

  it("uv projects keep uv", () => {
    const p = stackPreset("python", ["pyproject.toml", "uv.lock"], {});
    expect(p).toMatchObject({ setup: ["uv sync"], controls: { test: { run: "uv run pytest" } } });
  });
});

describe("the preset reads the project's files from the default branch", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("a committed pyproject.toml chooses pytest; the working tree does not count", async () => {
    const dir = sampleProject("pytest");
    dirs.push(dir);
    git(dir, "init", "-q", "-b", "main");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "sample");
    // An uncommitted edit that would switch to unittest has no effect.
    writeFileSync(join(dir, "pyproject.toml"), SETUPTOOLS_PROJECT);
    const source = await readConfigSource(dir, gitRunner(dir));
    expect(source.rootTexts?.["pyproject.toml"]).toContain("[tool.pytest.ini_options]");
    const { config } = resolveFromSource(source);
    expect(config.controls.test).toMatchObject({ run: `${PY} -m pytest`, origin: "preset:python" });
    expect(config.setup.value).toEqual([VENV, `${PIP} --no-build-isolation -e .`]);
  });

  it("without rootTexts the preset still works from file names", () => {
    const config = resolveConfig({ rootFiles: ["pyproject.toml", "tests"] });
    expect(config.controls.test?.run).toBe(`${PY} -m unittest discover -s tests`);
  });
});

/** A host PATH without a toolchain under a home (pyenv, …): what a box sees. */
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

describe("the commands work offline on the distribution's Python", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it.each(["unittest", "pytest"] as const)(
    "a %s project installs into .venv and its tests pass, with no network",
    (kind) => {
      const dir = sampleProject(kind);
      dirs.push(dir);
      const files = [
        "pyproject.toml",
        "src",
        "tests",
        ...(kind === "pytest" ? ["conftest.py"] : []),
      ];
      const texts = { "pyproject.toml": pyproject(kind) };
      const preset = stackPreset("python", files, texts);
      const script = [...preset.setup, preset.controls.test?.run ?? "false"].join(" && ");
      // A network namespace of its own: no index could be reached even if there were one.
      const r = spawnSync(
        "bwrap",
        ["--dev-bind", "/", "/", "--unshare-net", "--chdir", dir, "--", "sh", "-c", script],
        { encoding: "utf8", env: { PATH: SYSTEM_PATH, HOME: dir }, timeout: 120_000 },
      );
      expect(r.status, `${script}\n${r.stdout}\n${r.stderr}`).toBe(0);
      expect(`${r.stdout}${r.stderr}`).toMatch(kind === "pytest" ? /2 passed/ : /Ran 2 tests/);
      // The system interpreter was left alone: the package is only in the venv.
      const system = spawnSync("python3", ["-c", "import greet"], {
        env: { PATH: SYSTEM_PATH },
        cwd: tmpdir(),
      });
      expect(system.status).not.toBe(0);
    },
    180_000,
  );
});

function pyproject(kind: "unittest" | "pytest"): string {
  return kind === "pytest"
    ? `${SETUPTOOLS_PROJECT}\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n`
    : SETUPTOOLS_PROJECT;
}

/** A small src-layout project with two tests, written for these tests. */
function sampleProject(kind: "unittest" | "pytest"): string {
  const dir = mkdtempSync(join(tmpdir(), `forge-py-${kind}-`));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write("pyproject.toml", pyproject(kind));
  write("src/greet/__init__.py", 'def greeting(name: str) -> str:\n    return f"Hello, {name}!"\n');
  if (kind === "pytest") {
    write("conftest.py", "");
    write(
      "tests/test_greet.py",
      'from greet import greeting\n\n\ndef test_name():\n    assert greeting("Ada") == "Hello, Ada!"\n\n\ndef test_empty():\n    assert greeting("") == "Hello, !"\n',
    );
  } else {
    write(
      "tests/test_greet.py",
      'import unittest\n\nfrom greet import greeting\n\n\nclass GreetingTest(unittest.TestCase):\n    def test_name(self):\n        self.assertEqual(greeting("Ada"), "Hello, Ada!")\n\n    def test_empty(self):\n        self.assertEqual(greeting(""), "Hello, !")\n',
    );
  }
  return dir;
}
