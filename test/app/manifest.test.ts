import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { HANDLED_EVENTS } from "../../src/app/app.js";
import { REPO_ROOT } from "../harness/claude-run.js";

describe("app.yml (R10.4)", () => {
  const manifest = parse(readFileSync(join(REPO_ROOT, "app.yml"), "utf8")) as {
    default_events: string[];
    default_permissions: Record<string, string>;
  };

  it("subscribes to exactly the events the app handles", () => {
    const handled = new Set(HANDLED_EVENTS.map((e) => e.split(".")[0]));
    // installation events reach every App without a subscription.
    handled.delete("installation");
    handled.delete("installation_repositories");
    expect([...manifest.default_events].sort()).toEqual([...handled].sort());
  });

  it("asks for the least permissions its requests need, nothing more", () => {
    expect(manifest.default_permissions).toEqual({
      checks: "write",
      contents: "write",
      issues: "write",
      pull_requests: "write",
      metadata: "read",
    });
  });
});
