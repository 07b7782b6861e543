import type { Queryable } from '../../db/database.ts';
import { csvFileTimestamp, csvStream, type CsvCell, type CsvDownload } from '../../http/csv.ts';
import { pageWindow, totalPages } from '../../http/list-query.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  packageSubmissionBatches,
  pagePackageSubmissions,
  pageTxSubmissions,
  submissionHexes,
  txSubmissionBatches,
  type PackagePageRecord,
  type PackageRecord,
  type TxPageRecord,
  type TxRecord,
} from './tx-puller.repository.ts';
import { submissionFilters } from '../accepted-submissions/accepted-submissions.query.ts';
import { PULLED_TX_NOT_FOUND_MESSAGE, type PulledHexResponse, type PulledPackage, type PulledTx, type SubmissionType, type TxPullerListResponse, type TxPullerQuery } from './tx-puller.schemas.ts';
import { ApiError } from '../../http/errors.ts';

/** The Tx Puller screen's columns (docs/behaviour.md#tx-puller), the header of its download. */
export const TX_PULLER_CSV_HEADER = ['Sno', 'Client Code', 'Timestamp', 'Tx ID', 'Tx Hex', 'TX SIZE', 'FeeRate', 'Total Fee', 'Slipstream Multiple'] as const;

/**
 * A package's ids and hexes share one cell each, comma-separated: the form
 * the submit page takes a package in, so a pulled package can be pasted back.
 */
const LIST_SEPARATOR = ',';

function pulledTx(record: TxPageRecord): PulledTx {
  return {
    id: record.id,
    client_code: record.client_code,
    timestamp: record.created_at.toISOString(),
    txid: record.txid,
    tx_hex: record.tx_hex,
    tx_hex_length: record.tx_hex_length,
    tx_size: record.vsize,
    fee_rate: record.fee_rate,
    total_fee: record.fee,
    multiplier: record.multiplier,
  };
}

function pulledPackage(record: PackagePageRecord): PulledPackage {
  return {
    id: record.id,
    client_code: record.client_code,
    timestamp: record.created_at.toISOString(),
    txids: record.txids,
    txs_hex: record.tx_hexes,
    txs_hex_length: record.tx_hex_lengths,
    tx_size: record.total_vsize,
    fee_rate: record.fee_rate,
    total_fee: record.total_fee,
    multiplier: record.multiplier,
  };
}

const txCells = (sno: number, r: TxRecord): CsvCell[] =>
  [sno, r.client_code, r.created_at.toISOString(), r.txid, r.tx_hex, r.vsize, r.fee_rate, r.fee, r.multiplier];

const packageCells = (sno: number, r: PackageRecord): CsvCell[] =>
  [sno, r.client_code, r.created_at.toISOString(), r.txids.join(LIST_SEPARATOR), r.tx_hexes.join(LIST_SEPARATOR), r.total_vsize, r.fee_rate, r.total_fee, r.multiplier];

/** Batches of records as batches of CSV rows, numbered from 1 across batches as the screen numbers them. */
async function* numbered<R>(batches: AsyncIterable<R[]>, cells: (sno: number, record: R) => CsvCell[]): AsyncGenerator<CsvCell[][]> {
  let sno = 0;
  for await (const batch of batches) yield batch.map((record) => cells(++sno, record));
}

export interface TxPullerService {
  list(query: TxPullerQuery): Promise<TxPullerListResponse>;
  /** Every matching row as CSV, streamed (docs/behaviour.md#downloads: tx-puller-{type}-report-{timestamp}.csv). */
  download(query: TxPullerQuery): Promise<CsvDownload>;
  /** One row's whole hex (pages carry it shortened); 404 for an unknown id. */
  hex(id: number, type: SubmissionType): Promise<PulledHexResponse>;
}

export function createTxPullerService(deps: { db: Queryable; clock: Clock }): TxPullerService {
  const { db, clock } = deps;
  const typeOf = (query: TxPullerQuery): SubmissionType => query.submission_type ?? 'tx_submissions';
  return {
    async list(query) {
      const filters = submissionFilters(query);
      const window = pageWindow(query);
      const page = typeOf(query) === 'package_submissions'
        ? await pagePackageSubmissions(db, filters, window).then(({ records, total }) => ({ result: records.map(pulledPackage), total }))
        : await pageTxSubmissions(db, filters, window).then(({ records, total }) => ({ result: records.map(pulledTx), total }));
      return { result: page.result, total_pages: totalPages(page.total, window.limit), total_records: page.total };
    },

    async hex(id, type) {
      const found = await submissionHexes(db, type, id);
      if (!found) throw new ApiError(404, PULLED_TX_NOT_FOUND_MESSAGE);
      return found;
    },

    async download(query) {
      const filters = submissionFilters(query);
      const type = typeOf(query);
      const rows = type === 'package_submissions'
        ? numbered(packageSubmissionBatches(db, filters), packageCells)
        : numbered(txSubmissionBatches(db, filters), txCells);
      return {
        filename: `tx-puller-${type}-report-${csvFileTimestamp(clock.now())}.csv`,
        body: await csvStream(TX_PULLER_CSV_HEADER, rows),
      };
    },
  };
}
