import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { scanSecrets } from "../../src/secrets/index.js";
import { profilerEntryCount } from "../../src/secrets/quiet-profiler.js";
import { fake } from "./fake-secrets.js";

describe("secretlint's profiler is silenced", () => {
  it("keeps nothing across many scans: no marks in Node's timeline, none in the profiler", async () => {
    const marksBefore = performance.getEntriesByType("mark").length;
    for (let i = 0; i < 30; i++) {
      // Each scan still finds what it should: silencing the profiler changes nothing else.
      const found = await scanSecrets(`line ${i} ${fake.githubToken()}\n`);
      expect(found.map((f) => f.ruleId)).toContain("github");
    }
    // The profiler's observer is called asynchronously: let it run before counting.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(performance.getEntriesByType("mark").length - marksBefore).toBe(0);
    expect(profilerEntryCount()).toBe(0);
  });
});
