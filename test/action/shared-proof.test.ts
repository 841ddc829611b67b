// The box proof shared by a repository's issues, for real: a bare repository as the remote, the
// real SQLite journals of two "jobs" on two runners. A signed proof made by one job is imported
// by the next under its own box key; one not signed with the workflow's key is ignored.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gateKeyOf } from "../../src/action/run-action.js";
import {
  exportSharedProof,
  importSharedProof,
  PROOF_REF,
  type SharedProofDeps,
} from "../../src/action/shared-proof.js";
import type { BoxProof } from "../../src/chain/ports.js";
import { readRefState, writeRefState } from "../../src/store/ref-state.js";
import { openJournal } from "../../src/store/sqlite-journal.js";
import { tempDir } from "../helpers/git-repo.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const KEY = gateKeyOf({ gateSecret: "forge-test-gate-secret-not-a-real-one-0000" });
const proof = (over: Partial<BoxProof> = {}): BoxProof => ({
  boxKey: "bwrap:/runner-1/home/repos/o/r.git",
  facts: { harness: "claude 2.0.0", box: "bwrap" },
  ok: true,
  checks: [{ name: "enforcement: reviewer", ok: true, detail: "refused every write" }],
  provedAt: "2026-12-03T10:00:00.000Z",
  ...over,
});

function setup() {
  const t = tempDir("forge-shared-proof-");
  cleanups.push(t.cleanup);
  const remote = join(t.dir, "origin.git");
  execFileSync("git", ["init", "--quiet", "--bare", remote]);
  const job = (name: string, key = KEY) => {
    const store = openJournal(join(t.dir, `${name}.db`));
    cleanups.push(() => void store.close());
    const lines: string[] = [];
    const deps: SharedProofDeps = {
      target: { remote, scratch: join(t.dir, `${name}-scratch.git`) },
      key,
      store,
      boxKey: `bwrap:/${name}/home/repos/o/r.git`,
      log: (l) => lines.push(l),
    };
    return { store, deps, lines };
  };
  return { remote, job, scratch: join(t.dir, "reader.git") };
}

describe("the shared box proof in refs/forge/proof", () => {
  it("one job's passing proof is imported by the next job, under that job's box key", async () => {
    const { job } = setup();
    const a = job("runner-1");
    const seenA = await importSharedProof(a.deps);
    expect(seenA).toEqual({ oid: null, provedAt: null });
    await a.store.saveProof(proof());
    await exportSharedProof(a.deps, seenA);
    expect(a.lines.join("\n")).toContain(`kept in ${PROOF_REF}`);

    const b = job("runner-2");
    const seenB = await importSharedProof(b.deps);
    expect(seenB.provedAt).toBe(proof().provedAt);
    expect(await b.store.latestProof(b.deps.boxKey)).toMatchObject({
      boxKey: "bwrap:/runner-2/home/repos/o/r.git",
      facts: proof().facts,
      ok: true,
    });
    // Nothing newer: the next job writes nothing.
    await exportSharedProof(b.deps, seenB);
    expect(b.lines.join("\n")).not.toContain("kept in");
  });

  it("a failed proof is never shared", async () => {
    const { job } = setup();
    const a = job("runner-1");
    const seen = await importSharedProof(a.deps);
    await a.store.saveProof(proof({ ok: false }));
    await exportSharedProof(a.deps, seen);
    const b = job("runner-2");
    expect(await importSharedProof(b.deps)).toEqual({ oid: null, provedAt: null });
  });

  it("a proof signed with another key, or changed after signing, is ignored and said so", async () => {
    const { job, remote, scratch } = setup();
    const other = job(
      "elsewhere",
      gateKeyOf({ gateSecret: "another-repository-secret-000000000000" }),
    );
    await other.store.saveProof(proof({ boxKey: other.deps.boxKey }));
    await exportSharedProof(other.deps, await importSharedProof(other.deps));

    const b = job("runner-2");
    expect((await importSharedProof(b.deps)).provedAt).toBeNull();
    expect(await b.store.latestProof(b.deps.boxKey)).toBeNull();
    expect(b.lines.join("\n")).toContain("not signed with this workflow's gate_secret");

    // Signed with the right key, then its facts edited in the repository: ignored too.
    const a = job("runner-1");
    await a.store.saveProof(proof({ provedAt: "2026-12-03T11:00:00.000Z" }));
    await exportSharedProof(a.deps, await importSharedProof(a.deps));
    const target = { remote, scratch, ref: PROOF_REF };
    const snap = await readRefState(target);
    const doc = JSON.parse(String(snap.files.get("proof.json")));
    doc.proof.facts.harness = "claude 9.9.9";
    await writeRefState(
      target,
      snap.oid,
      new Map([["proof.json", Buffer.from(JSON.stringify(doc))]]),
      "edit",
    );
    const c = job("runner-3");
    expect((await importSharedProof(c.deps)).provedAt).toBeNull();
    expect(await c.store.latestProof(c.deps.boxKey)).toBeNull();
  });

  it("two jobs sharing at once: one proof lands, the other job loses nothing", async () => {
    const { job } = setup();
    const a = job("runner-1");
    const b = job("runner-2");
    const [seenA, seenB] = [await importSharedProof(a.deps), await importSharedProof(b.deps)];
    await a.store.saveProof(proof({ boxKey: a.deps.boxKey }));
    await b.store.saveProof(proof({ boxKey: b.deps.boxKey, provedAt: "2026-12-03T10:00:01.000Z" }));
    await Promise.all([exportSharedProof(a.deps, seenA), exportSharedProof(b.deps, seenB)]);
    const c = job("runner-3");
    expect((await importSharedProof(c.deps)).provedAt).toMatch(/^2026-12-03T10:00:0[01]/);
  });
});
