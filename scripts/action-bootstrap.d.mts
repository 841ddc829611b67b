import type { BuildOptions } from "esbuild";

export const actionBootstrap: BuildOptions;
