// Bundles the CLI with esbuild. Two entries: the guard is its own small bundle because it
// runs on every tool call of every agent and must start close to bare `node`; everything
// else lives in cli.js. Dependencies stay external (native modules, wasm files).
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { build as esbuild } from "esbuild";

// Each output is written beside its place and renamed over it: a process that loads a bundle
// while a build runs (a server during `npm run build`, an agent's hook while `npm pack` runs
// prepare in a test) reads the old file or the new one, never half of one.
async function build(options) {
  const result = await esbuild({ ...options, write: false });
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
  }
  return result;
}

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: "linked",
  logLevel: "warning",
};

await Promise.all([
  build({ ...common, entryPoints: ["src/cli/main.ts"], outfile: "dist/cli.js" }),
  // The guard: CommonJS with its dependencies inlined (no ESM loader, no ESM→CJS translation
  // at start-up). Only the parser packages stay external: they load wasm/native files by path.
  // guard-client.cjs is the small hook that asks the in-box guard server (guard-server.cjs)
  // and loads guard.cjs only when it has to decide itself.
  ...["guard", "guard-client", "guard-server"].map((name) =>
    build({
      ...common,
      entryPoints: [`src/cli/${name}-entry.ts`],
      outfile: `dist/${name}.cjs`,
      format: "cjs",
      packages: undefined,
      external: ["web-tree-sitter", "tree-sitter", "tree-sitter-bash", "./guard.cjs"],
      define: { "import.meta.url": "__forge_import_meta_url" },
      banner: {
        js: 'const __forge_import_meta_url = require("node:url").pathToFileURL(__filename).href;',
      },
    }),
  ),
  // The credential-scan control runs in every builder box: it gets a small bundle too, with
  // secretlint inlined (measured: resolving and loading its ESM packages from node_modules was
  // ≈ 40 ms of the control's ≈ 0.2 s, on the builder's critical path). `require` is provided for
  // the CommonJS dependencies esbuild wraps.
  build({
    ...common,
    entryPoints: ["src/cli/scan-secrets-entry.ts"],
    outfile: "dist/scan-secrets.js",
    packages: undefined,
    banner: {
      js: 'import { createRequire as __forgeCreateRequire } from "node:module"; const require = __forgeCreateRequire(import.meta.url);',
    },
  }),
  // The in-box egress relay (src/egress/relay.ts): started before a networked box's command,
  // which waits for it, so it must start like bare node — CommonJS, nothing to resolve.
  build({
    ...common,
    entryPoints: ["src/egress/relay-entry.ts"],
    outfile: "dist/egress-relay.cjs",
    format: "cjs",
  }),
  build({
    ...common,
    entryPoints: ["src/cli/stop-verify-entry.ts"],
    outfile: "dist/stop-verify.js",
  }),
  // The packaged Action's job (src/action/main.ts), started by action/dist/index.js.
  build({ ...common, entryPoints: ["src/action/main.ts"], outfile: "dist/action.js" }),
]);
