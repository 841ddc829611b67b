// A separate process that drives one chain with the real local runner, for the kill -9 test.
// argv: <forgeHome> <repo> ; env FORGE_TEST_MODEL_URL. Prints "run <id>" once the run exists.

import { join } from "node:path";
import { openLocalStack } from "../../../src/cli/local/stack.js";
import { installRoot } from "../../../src/install-root.js";
import { loadProfiles } from "../../../src/policy/index.js";
import { loadRepoPolicy } from "../../../src/policy/repo-policy.js";
import { gitRunnerIn } from "../../../src/runner/git-runner.js";
import { buildSnapshotContent } from "../../../src/runner/snapshot-content.js";

const [forgeHome, repo] = process.argv.slice(2) as [string, string];
const root = installRoot();
const policy = await loadRepoPolicy(repo, {
  git: gitRunnerIn(repo),
  profiles: loadProfiles(join(root, "profiles")),
});
const stack = openLocalStack({
  root,
  forgeHome,
  env: {
    PATH: process.env.PATH,
    ANTHROPIC_BASE_URL: process.env.FORGE_TEST_MODEL_URL,
    ANTHROPIC_API_KEY: "sk-ant-forge-test-not-a-real-key",
  },
  box: "bwrap",
  ownWork: false,
  provider: "claude",
  policy,
});
const run = await stack.engine.startRun({
  chain: "change",
  task: { title: "Add the exclamation mark", body: "greet.sh must print 'Hello, NAME!'." },
  repo: { remote: repo, baseRef: "main" },
  snapshotContent: await buildSnapshotContent({
    installRoot: root,
    remote: repo,
    ref: "main",
    provider: { name: "claude", version: "test" },
  }),
  requestBudget: 2,
});
process.stdout.write(`run ${run.id}\n`);
await stack.engine.drive(run.id);
await stack.close();
