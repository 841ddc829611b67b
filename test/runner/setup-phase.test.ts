// The setup phase with real boxes, git and the real claude binary: setup runs once, read-only
// steps see its results read-only, the builder gets a copy it may write, a venv's editable
// install leads to each step's own files, and a changed dependency manifest sets up again.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { demoScript } from "../../src/demo/demo-script.js";
import type { Script, Turn } from "../../src/scripted-model/server.js";
import { gitIn } from "../helpers/git-repo.js";
import { runScripted, useModelServer, withRole } from "./chain-helpers.js";

const server = useModelServer();
const SUMMARY = "A summary long enough for the schema. ".repeat(8);
const bash = (command: string): Turn => ({ tools: [{ name: "Bash", input: { command } }] });
const builderPass: Turn = {
  structured: {
    verdict: "PASS",
    summary: SUMMARY,
    evidence: [{ command: "make test", exit_code: 0, output: "ok" }],
  },
};
const reviewPass: Turn = { structured: { verdict: "PASS", summary: SUMMARY, findings: [] } };

function project(files: Record<string, string>, forgeYml: string) {
  return (repo: string) => {
    for (const [path, text] of Object.entries({ ...files, ".github/forge.yml": forgeYml })) {
      mkdirSync(join(repo, path, ".."), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    gitIn(repo, "add", "-A");
    gitIn(repo, "commit", "-qm", "project");
  };
}

function script(roles: Partial<Record<"architect" | "builder" | "reviewer", Turn[]>>): Script {
  let s = demoScript();
  for (const [role, turns] of Object.entries(roles)) s = withRole(role, turns, s);
  return s;
}

const results = (content: string) =>
  server.toolResults.filter((r) => String(r.input?.command ?? "").includes(content));

describe("the setup phase in a run", () => {
  it("runs once; read-only steps see its results read-only; the builder writes its own copy", async () => {
    const r = await runScripted(
      server,
      script({
        architect: [bash("cat deps/lib.txt"), ...(demoScript().routes?.[0]?.turns.slice(-1) ?? [])],
        builder: [bash("make test"), builderPass],
        reviewer: [bash("ls -a deps"), reviewPass],
      }),
      {
        setupRepo: project(
          {
            "setup.sh": "mkdir -p deps && echo forge-setup-v1 > deps/lib.txt\n",
            Makefile: "test:\n\tcat deps/lib.txt && echo cached > deps/cache && echo tests-ok\n",
            ".gitignore": "deps/\n",
          },
          "setup:\n  - sh setup.sh\nvalidate:\n  test:\n    run: make test\n",
        ),
      },
    );
    try {
      expect(r.final.state).toBe("passed");
      expect(r.events.filter((e) => e.type === "run.setup.started")).toHaveLength(1);
      const setup = r.events.find((e) => e.type === "setup.finished");
      expect(setup?.data.results).toEqual(["deps"]);
      expect(results("cat deps/lib.txt")[0]?.content).toContain("forge-setup-v1");
      const make = results("make test")[0];
      expect(make?.isError, String(make?.content)).toBe(false);
      expect(make?.content).toContain("tests-ok");
      // The builder's write went to its own copy: the reviewer sees the setup's results as
      // they were, and its write check was not confused by them.
      const listed = String(results("ls -a deps")[0]?.content);
      expect(listed).toContain("lib.txt");
      expect(listed).not.toContain("cache");
      expect(r.events.some((e) => e.type === "runner.step.wrote")).toBe(false);
      // The controls' checkout got the results too, without setting up again.
      expect(r.events.filter((e) => e.type === "setup.finished")).toHaveLength(1);
      const controls = r.events.find((e) => e.type === "controls.finished");
      expect(controls?.data.passed).toBe(true);
    } finally {
      await r.f.cleanup();
    }
  });

  it("a failed setup fails the run before any agent starts, with the command and its output", async () => {
    server.reset();
    const r = await runScripted(server, demoScript(), {
      setupRepo: project(
        { "setup.sh": "echo cannot-install >&2; exit 3\n" },
        "setup:\n  - sh setup.sh\nvalidate:\n  test:\n    run: make test\n",
      ),
    });
    try {
      expect(r.final.state).toBe("failed");
      expect(r.steps.every((s) => s.state === "queued")).toBe(true);
      expect(server.mainRequests()).toHaveLength(0);
      const finished = r.events.find((e) => e.type === "run.finished");
      expect(String(finished?.data.reasons)).toContain("setup command failed: sh setup.sh");
      expect(String(finished?.data.reasons)).toContain("cannot-install");
    } finally {
      await r.f.cleanup();
    }
  });

  it("a changed dependency manifest sets up again for the controls", async () => {
    const r = await runScripted(
      server,
      script({
        builder: [
          { tools: [{ name: "Write", input: { file_path: "requirements.txt", content: "v2\n" } }] },
          builderPass,
        ],
      }),
      {
        setupRepo: project(
          {
            "requirements.txt": "v1\n",
            "setup.sh": "mkdir -p deps && cp requirements.txt deps/lib.txt\n",
            Makefile: "test:\n\tcat deps/lib.txt\n",
            ".gitignore": "deps/\n",
          },
          "setup:\n  - sh setup.sh\nvalidate:\n  test:\n    run: make test\n",
        ),
      },
    );
    try {
      expect(r.final.state).toBe("passed");
      const again = r.events.filter(
        (e) => e.type === "setup.finished" && e.data.for === "controls",
      );
      expect(again).toHaveLength(1);
      expect(String(again[0]?.data.because)).toContain("requirements.txt");
      const controls = r.events.find((e) => e.type === "controls.finished");
      expect(String(controls?.data.lines)).toContain("test: passed");
    } finally {
      await r.f.cleanup();
    }
  });

  it("a venv's editable install leads each step to its own files, not the setup's", async () => {
    const r = await runScripted(
      server,
      script({
        builder: [
          {
            tools: [
              {
                name: "Write",
                input: {
                  file_path: "src/pkg/mod.py",
                  content: "def greet(n):\n    return f'Hello, {n}!'\n",
                },
              },
            ],
          },
          bash("make test"),
          builderPass,
        ],
      }),
      {
        setupRepo: project(
          {
            "pyproject.toml":
              '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n[project]\nname = "pkg"\nversion = "0.1.0"\n[tool.setuptools.packages.find]\nwhere = ["src"]\n',
            "src/pkg/__init__.py": "",
            "src/pkg/mod.py": "def greet(n):\n    return f'Hello, {n}'\n",
            "tests/test_mod.py":
              "import unittest\nfrom pkg.mod import greet\nclass T(unittest.TestCase):\n    def test(self):\n        self.assertEqual(greet('A'), 'Hello, A!')\n",
            Makefile: "test:\n\t.venv/bin/python -m unittest discover -s tests -v\n",
            ".gitignore": ".venv/\n*.egg-info/\n__pycache__/\n",
          },
          "setup:\n  - python3 -m venv --system-site-packages .venv\n  - .venv/bin/python -m pip install --no-build-isolation --no-index -e .\nvalidate:\n  test:\n    run: make test\n",
        ),
      },
    );
    try {
      // The test expects the builder's change: it passes only if `import pkg` reads the
      // builder's workspace through the editable install the setup made elsewhere.
      const make = results("make test")[0];
      expect(make?.content).toContain("OK");
      expect(r.final.state).toBe("passed");
    } finally {
      await r.f.cleanup();
    }
  });
});
