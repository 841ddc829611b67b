// The layering forgechain keeps (checked by `npm run lint:deps`, part of `npm test`):
// the domain imports no adapter, adapters never import the CLI, the App and the Action reach the
// runner through its one public module, boxes do not pick a provider, and only src/github talks
// to GitHub's client libraries.
const DOMAIN = "^src/(chain|roles|policy|seal|guard)/";
const ADAPTERS = "^src/(app|action|github|runner|boxes|providers|store|cli|egress)/";

module.exports = {
  forbidden: [
    {
      name: "domain-imports-no-adapter",
      comment:
        "chain, roles, policy, seal and guard are the domain: adapters are passed in through the ports in src/chain/ports.ts",
      severity: "error",
      from: { path: DOMAIN },
      to: { path: ADAPTERS },
    },
    {
      name: "adapters-import-no-cli",
      comment: "the CLI is an entry point: what others need from it belongs in an adapter",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/cli/" },
      to: { path: "^src/cli/" },
    },
    {
      name: "app-reaches-runner-through-its-index",
      comment: "the App and the Action use the runner's public module (src/runner/index.ts) only",
      severity: "error",
      from: { path: "^src/(app|action)/" },
      to: { path: "^src/runner/", pathNot: "^src/runner/index\\.ts$" },
    },
    {
      name: "boxes-pick-no-provider",
      comment: "a box runs whatever agent it is given: the provider is passed in",
      severity: "error",
      from: { path: "^src/boxes/" },
      to: { path: "^src/providers/" },
    },
    {
      name: "only-github-touches-octokit",
      comment: "src/github is the one interface in front of GitHub's API clients",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/github/" },
      to: { path: "node_modules/@octokit/" },
    },
    {
      name: "no-circular-between-modules",
      comment: "two modules that import each other are one module",
      severity: "error",
      from: { path: "^src/([^/]+)/" },
      to: { circular: true, path: "^src/([^/]+)/", pathNot: "^src/$1/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".json"] },
  },
};
