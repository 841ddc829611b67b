// The box proof, shared by every issue of a repository (R7.2 proof, R10.3 state). Each issue's
// journal travels in refs/forge/state/<n>; without this, every issue's first job would prove the
// box again (≈ 20 s). The newest passing proof is also kept in refs/forge/proof, signed with a
// key derived from the workflow's gate_secret: a job imports it into its journal (under its own
// box key — the key names a path of this runner) and the box gate then checks its facts against
// this runner as for any proof, proving again when they differ. A proof whose signature does not
// hold is ignored, never trusted: only a holder of gate_secret can spare a job its proof.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { BoxProof, JournalStore } from "../chain/ports.js";
import {
  RefStateConflict,
  type RefStateTarget,
  readRefState,
  writeRefState,
} from "../store/ref-state.js";

export const PROOF_REF = "refs/forge/proof";
const FILE = "proof.json";
const MAX_BYTES = 1024 * 1024;
const MAC_CONTEXT = "forgechain shared box proof v1\0";

export interface SharedProofDeps {
  target: Omit<RefStateTarget, "ref">;
  /** The seal key (from gate_secret): it signs what it shares. */
  key: Buffer;
  store: Pick<JournalStore, "saveProof" | "latestProof">;
  /** This job's box key (kind and mirror path). */
  boxKey: string;
  log(line: string): void;
}

/** What a job read, for `exportSharedProof` to write against (compare-and-swap). */
export interface SharedProofSeen {
  oid: string | null;
  provedAt: string | null;
}

export async function importSharedProof(d: SharedProofDeps): Promise<SharedProofSeen> {
  const snap = await readRefState({ ...d.target, ref: PROOF_REF });
  const bytes = snap.files.get(FILE);
  if (!bytes) return { oid: snap.oid, provedAt: null };
  const proof = openSigned(bytes, d.key);
  if (!proof) {
    d.log(
      `${PROOF_REF} is not signed with this workflow's gate_secret: ignored, the box is proved`,
    );
    return { oid: snap.oid, provedAt: null };
  }
  const mine = await d.store.latestProof(d.boxKey);
  if (!mine || mine.provedAt < proof.provedAt) {
    await d.store.saveProof({ ...proof, boxKey: d.boxKey });
    d.log(`the box proof of ${proof.provedAt} from ${PROOF_REF} is checked against this runner`);
  }
  return { oid: snap.oid, provedAt: proof.provedAt };
}

/** Shares this job's proof when it is newer than what the job read and it passed. */
export async function exportSharedProof(d: SharedProofDeps, seen: SharedProofSeen): Promise<void> {
  const proof = await d.store.latestProof(d.boxKey);
  if (!proof?.ok || (seen.provedAt !== null && proof.provedAt <= seen.provedAt)) return;
  const files = new Map([[FILE, sign(proof, d.key)]]);
  try {
    await writeRefState({ ...d.target, ref: PROOF_REF }, seen.oid, files, "box proof");
    d.log(`the box proof of ${proof.provedAt} is kept in ${PROOF_REF} for later jobs`);
  } catch (error) {
    // Another job shared its own proof meanwhile: as good as ours; nothing is lost.
    if (!(error instanceof RefStateConflict)) throw error;
  }
}

function sign(proof: BoxProof, key: Buffer): Buffer {
  return Buffer.from(JSON.stringify({ v: 1, mac: mac(proof, key), proof }));
}

function openSigned(bytes: Buffer, key: Buffer): BoxProof | null {
  if (bytes.length > MAX_BYTES) return null;
  let doc: { v?: unknown; mac?: unknown; proof?: unknown };
  try {
    doc = JSON.parse(bytes.toString("utf8"));
  } catch {
    return null;
  }
  if (doc.v !== 1 || typeof doc.mac !== "string" || !isProof(doc.proof)) return null;
  const want = Buffer.from(mac(doc.proof, key), "hex");
  const got = Buffer.from(doc.mac, "hex");
  return got.length === want.length && timingSafeEqual(got, want) ? doc.proof : null;
}

function isProof(p: unknown): p is BoxProof {
  const x = p as BoxProof;
  return (
    typeof x === "object" &&
    x !== null &&
    typeof x.boxKey === "string" &&
    typeof x.provedAt === "string" &&
    x.ok === true &&
    typeof x.facts === "object" &&
    x.facts !== null &&
    Object.values(x.facts).every((v) => typeof v === "string") &&
    Array.isArray(x.checks)
  );
}

function mac(proof: BoxProof, key: Buffer): string {
  return createHmac("sha256", key).update(MAC_CONTEXT).update(stable(proof)).digest("hex");
}

/** JSON with object keys sorted: the same proof always signs the same bytes. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stable(x)}`).join(",")}}`;
  }
  return JSON.stringify(v);
}
