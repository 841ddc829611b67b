// The PostgreSQL journal's small tables beside the run history: consumed seal nonces, processed
// webhook deliveries, run leases and box proofs. Each claim is one statement on its primary key,
// so of any number of replicas asking at once exactly one wins.
import type pg from "pg";
import type { BoxProof } from "../chain/ports.js";
import { type ProofRow, proofFromRow } from "./rows.js";

type Queryable = Pick<pg.Pool, "query">;

/** True the first time: a second consumption of the nonce is a no-op. */
export async function consumeNonce(
  db: Queryable,
  nonce: string,
  expiresAt: string,
  now: string,
): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO seal_nonces (nonce, expires_at, consumed_at) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
    [nonce, expiresAt, now],
  );
  return r.rowCount === 1;
}

export async function markDelivery(
  db: Queryable,
  deliveryId: string,
  now: string,
): Promise<boolean> {
  const r = await db.query(
    "INSERT INTO deliveries (id, seen_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    [deliveryId, now],
  );
  return r.rowCount === 1;
}

/** Takes or renews the lease: nobody holds it, its holder's lease expired, or `owner` holds it. */
export async function leaseRun(
  db: Queryable,
  runId: string,
  owner: string,
  now: string,
  expiresAt: string,
): Promise<boolean> {
  // One statement: of two replicas asking at once, the row's lock lets exactly one through.
  const r = await db.query(
    `INSERT INTO run_leases (run_id, owner, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
     WHERE run_leases.owner = excluded.owner OR run_leases.expires_at < $4`,
    [runId, owner, expiresAt, now],
  );
  return r.rowCount === 1;
}

export async function releaseRun(db: Queryable, runId: string, owner: string): Promise<void> {
  await db.query("DELETE FROM run_leases WHERE run_id = $1 AND owner = $2", [runId, owner]);
}

export async function saveProof(db: Queryable, proof: BoxProof): Promise<void> {
  await db.query(
    `INSERT INTO box_proofs (box_key, facts_json, ok, checks_json, proved_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [
      proof.boxKey,
      JSON.stringify(proof.facts),
      proof.ok ? 1 : 0,
      JSON.stringify(proof.checks),
      proof.provedAt,
    ],
  );
}

export async function latestProof(db: Queryable, boxKey: string): Promise<BoxProof | null> {
  const r = await db.query<ProofRow>(
    "SELECT * FROM box_proofs WHERE box_key = $1 ORDER BY id DESC LIMIT 1",
    [boxKey],
  );
  return r.rows[0] ? proofFromRow(r.rows[0]) : null;
}
