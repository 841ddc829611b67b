// `npm run build:action`: the packaged Action's `runs.main` (action/dist/index.js), node's own
// modules only. It is committed, and never written by `npm run build` or `npm ci`, so that
// test/action/bundle.test.ts compares what is committed with what this makes — change
// src/action/bootstrap.ts, run this, commit both.
import { build } from "esbuild";
import { actionBootstrap } from "./action-bootstrap.mjs";

await build({ ...actionBootstrap, outfile: "action/dist/index.js" });
