import { createHash } from 'node:crypto';
import type { Queryable } from '../../src/db/database.ts';

/**
 * Submission rows written straight into the database, for the staff lists'
 * tests (Tx Puller, TX Reports): what the submission flow would have stored,
 * without a node. Fee rates and multiples are derived from the integers the
 * way the flow derives them.
 */

/** A deterministic 64-digit lowercase hex id. */
export function fakeTxid(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}

export type TxStatus = 'pending' | 'accepted' | 'confirmed' | 'replaced' | 'evicted' | 'conflicted';

export interface TxFixture {
  id?: number;
  txid: string;
  txHex: string;
  clientCode: string | null;
  vsize: number;
  fee: number;
  marketRate: number;
  status: TxStatus;
  /** ISO text: Postgres keeps microseconds, which a Date would lose. */
  createdAt: string;
}

export interface PackageFixture {
  id?: number;
  txids: string[];
  txHexes: string[];
  clientCode: string | null;
  totalVsize: number | null;
  totalFee: number | null;
  marketRate: number | null;
  createdAt: string;
}

export async function insertTx(db: Queryable, f: TxFixture): Promise<number> {
  const feeRate = f.fee / f.vsize;
  const confirmed = f.status === 'confirmed';
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO tx_submissions (txid, wtxid, tx_hex, client_code, size, vsize, weight, fee, fee_rate, functional_rate, market_rate,
                                 threshold_rate, multiplier, status, block_hash, block_height, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, 1, $11, $12, $13, $14, $15::timestamptz) RETURNING id`,
    [
      f.txid, fakeTxid(`w${f.txid}`), f.txHex, f.clientCode, f.vsize + 40, f.vsize, f.vsize * 4, f.fee, feeRate, f.marketRate,
      feeRate / f.marketRate, f.status, confirmed ? fakeTxid(`block${f.txid}`) : null, confirmed ? 850_000 : null, f.createdAt,
    ],
  );
  f.id = rows[0]!.id;
  return f.id;
}

export async function insertPackage(db: Queryable, f: PackageFixture): Promise<number> {
  const feeRate = f.totalFee === null || f.totalVsize === null ? null : f.totalFee / f.totalVsize;
  const multiplier = feeRate === null || f.marketRate === null ? null : feeRate / f.marketRate;
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO package_submissions (package_hash, txids, tx_hexes, client_code, total_size, total_vsize, total_weight, total_fee,
                                      fee_rate, market_rate, multiplier, package_msg, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'success', $12::timestamptz) RETURNING id`,
    [
      fakeTxid(f.txids.join(',')), f.txids, f.txHexes, f.clientCode, f.totalVsize === null ? null : f.totalVsize + 80, f.totalVsize,
      f.totalVsize === null ? null : f.totalVsize * 4, f.totalFee, feeRate, f.marketRate, multiplier, f.createdAt,
    ],
  );
  f.id = rows[0]!.id;
  return f.id;
}

/** Reads RFC 4180 text back into records; throws on anything RFC 4180 does not allow. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
        if (![',', '\r', undefined].includes(text[i + 1])) throw new Error(`Text after a closing quote at offset ${i}`);
      } else {
        field += c;
      }
    } else if (c === '"') {
      if (field !== '') throw new Error(`A quote inside an unquoted field at offset ${i}`);
      quoted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r') {
      if (text[i + 1] !== '\n') throw new Error(`A bare CR at offset ${i}`);
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else if (c === '\n') {
      throw new Error(`A bare LF at offset ${i}`);
    } else {
      field += c;
    }
  }
  if (quoted) throw new Error('An unterminated quoted field');
  if (record.length > 0 || field !== '') throw new Error('The last record does not end in CRLF');
  return records;
}
