import type { Queryable } from '../../db/database.ts';
import type { StandardVerdict } from '../policy/policy.schemas.ts';

/**
 * Whether the public network would have relayed an accepted submission, as
 * the standard-policy oracle judged it (policy/note-standardness.ts): kept
 * on its row for staff (TX Reports' Public network column) and the metrics.
 */

export interface RecordedStandardness {
  txid: string;
  verdict: StandardVerdict['verdict'];
  /** Core's reject code, for a non-standard one. */
  reasonCode: string | undefined;
  /** Every relay policy's verdict in a line: 'core: standard; core-29: non-standard (scriptpubkey); knots: unknown'. */
  relayPolicies: string;
}

/** Sets each submission's verdict; a txid without a row (not recorded, or still spooled) changes nothing. */
export async function recordStandardness(db: Queryable, verdicts: RecordedStandardness[]): Promise<void> {
  for (const v of verdicts) {
    await db.query('UPDATE tx_submissions SET standard_verdict = $2, standard_reason = $3, relay_policies = $4 WHERE txid = $1', [v.txid, v.verdict, v.verdict === 'non-standard' ? (v.reasonCode ?? 'other') : null, v.relayPolicies]);
  }
}

/** Sets an accepted package's verdict; a package without a row (not recorded, or still spooled) changes nothing. */
export async function recordPackageStandardness(db: Queryable, packageHash: string, v: Omit<RecordedStandardness, 'txid'>): Promise<void> {
  await db.query('UPDATE package_submissions SET standard_verdict = $2, standard_reason = $3, relay_policies = $4 WHERE package_hash = $1', [packageHash, v.verdict, v.verdict === 'non-standard' ? (v.reasonCode ?? 'other') : null, v.relayPolicies]);
}


/**
 * Of these txids, the portal's single submissions public nodes refuse under
 * Core 30 (their recorded `core` verdict), with the reject code: a child of
 * one is refused with it, as nodes that never took the parent cannot take
 * the child. Packages keep one verdict for all their members, so their
 * members are not among them.
 */
export async function recordedCoreRefusals(db: Queryable, txids: readonly string[]): Promise<Map<string, string>> {
  if (txids.length === 0) return new Map();
  const { rows } = await db.query<{ txid: string; reason: string }>(
    `SELECT txid, standard_reason AS reason FROM tx_submissions WHERE txid = ANY($1::text[]) AND standard_verdict = 'non-standard' AND standard_reason IS NOT NULL`,
    [[...new Set(txids)]],
  );
  return new Map(rows.map((r) => [r.txid, r.reason]));
}
