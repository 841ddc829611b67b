import { randomBytes } from "node:crypto";
import type { IdSource } from "./ports.js";

/** 128-bit random hex ids (the `run_id` shape `/forge respond` carries). */
export function randomIds(): IdSource {
  return { newId: () => randomBytes(16).toString("hex") };
}
