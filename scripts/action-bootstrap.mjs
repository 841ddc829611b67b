// The packaged Action's bootstrap bundle (action/dist/index.js): its esbuild options, shared by
// the build and by the test that checks the committed copy is what the build makes.
export const actionBootstrap = {
  entryPoints: ["src/action/bootstrap.ts"],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
  legalComments: "none",
};
