import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/chain/canonical-json.js";
import { SnapshotError } from "../../src/chain/errors.js";
import { freezeSnapshot, verifySnapshot } from "../../src/chain/snapshot.js";

describe("canonical JSON", () => {
  it("sorts keys at every level and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: "x" }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });
  it("refuses what JSON cannot say", () => {
    for (const bad of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1n,
      () => 1,
      new Date(0),
      [undefined],
    ]) {
      expect(() => canonicalJson({ x: bad })).toThrow(/not plain JSON/);
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });
});

describe("freezeSnapshot (R8.5)", () => {
  const content = {
    roles: { architect: "# architect" },
    settings: { architect: { deny: ["Edit"] } },
    schemas: {},
    skills: { builder: ["tdd"] },
    provider: { name: "claude" },
  };

  it("digests the canonical JSON with sha256, independent of key order", () => {
    const snap = freezeSnapshot(content);
    const expected = createHash("sha256").update(canonicalJson(content)).digest("hex");
    expect(snap.digest).toBe(expected);
    const reordered = {
      provider: content.provider,
      skills: content.skills,
      schemas: {},
      settings: content.settings,
      roles: content.roles,
    };
    expect(freezeSnapshot(reordered).digest).toBe(snap.digest);
    expect(freezeSnapshot({ ...content, provider: { name: "codex" } }).digest).not.toBe(
      snap.digest,
    );
  });

  it("is a frozen copy: later edits of the source do not change the snapshot", () => {
    const source = structuredClone(content);
    const snap = freezeSnapshot(source);
    source.settings.architect.deny.push("Write");
    source.roles.architect = "# changed";
    expect(snap.content).toEqual(content);
    expect(verifySnapshot(snap)).toBe(true);
    expect(() => {
      (snap.content.roles as Record<string, string>).architect = "x";
    }).toThrow(TypeError);
  });

  it("detects a stored snapshot whose content no longer matches its digest", () => {
    const snap = freezeSnapshot(content);
    expect(
      verifySnapshot({ digest: snap.digest, content: { ...content, provider: { name: "x" } } }),
    ).toBe(false);
  });

  it("refuses non-JSON content", () => {
    expect(() => freezeSnapshot({ provider: undefined, x: Symbol("s") } as never)).toThrow(
      SnapshotError,
    );
    expect(() => freezeSnapshot([] as never)).toThrow(SnapshotError);
  });
});
