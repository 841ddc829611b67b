// The journal's small tables beside the run history: consumed seal nonces (R6.4), processed
// webhook deliveries (R1.5) and box proofs (R7.2). Each function runs inside the caller's
// transaction.
import type Database from "better-sqlite3";
import type { BoxProof } from "../chain/ports.js";
import { type ProofRow, proofFromRow } from "./rows.js";

/** True the first time: the primary key makes a second consumption a no-op, atomically. */
export function consumeNonce(
  db: Database.Database,
  nonce: string,
  expiresAt: string,
  now: string,
): boolean {
  const info = db
    .prepare("INSERT OR IGNORE INTO seal_nonces (nonce, expires_at, consumed_at) VALUES (?, ?, ?)")
    .run(nonce, expiresAt, now);
  return info.changes === 1;
}

export function markDelivery(db: Database.Database, deliveryId: string, now: string): boolean {
  const info = db
    .prepare("INSERT OR IGNORE INTO deliveries (id, seen_at) VALUES (?, ?)")
    .run(deliveryId, now);
  return info.changes === 1;
}

export function saveProof(db: Database.Database, proof: BoxProof): void {
  db.prepare(
    `INSERT INTO box_proofs (box_key, facts_json, ok, checks_json, proved_at)
     VALUES (?, ?, ?, ?, ?)`,
  ).run(
    proof.boxKey,
    JSON.stringify(proof.facts),
    proof.ok ? 1 : 0,
    JSON.stringify(proof.checks),
    proof.provedAt,
  );
}

export function latestProof(db: Database.Database, boxKey: string): BoxProof | null {
  const row = db
    .prepare("SELECT * FROM box_proofs WHERE box_key = ? ORDER BY id DESC LIMIT 1")
    .get(boxKey) as ProofRow | undefined;
  return row ? proofFromRow(row) : null;
}

/** R10.2: the run's lease, taken or renewed when free, expired, or already `owner`'s. */
export function leaseRun(
  db: Database.Database,
  runId: string,
  owner: string,
  now: string,
  expiresAt: string,
): boolean {
  const info = db
    .prepare(
      `INSERT INTO run_leases (run_id, owner, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE run_leases.owner = excluded.owner OR run_leases.expires_at < ?`,
    )
    .run(runId, owner, expiresAt, now);
  return info.changes === 1;
}

export function releaseRun(db: Database.Database, runId: string, owner: string): void {
  db.prepare("DELETE FROM run_leases WHERE run_id = ? AND owner = ?").run(runId, owner);
}
