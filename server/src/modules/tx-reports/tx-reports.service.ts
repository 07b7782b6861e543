import type { Queryable } from '../../db/database.ts';
import { csvFileTimestamp, csvStream, type CsvCell, type CsvDownload } from '../../http/csv.ts';
import { pageWindow, totalPages } from '../../http/list-query.ts';
import type { Clock } from '../../lib/clock.ts';
import { submissionFilters } from '../accepted-submissions/accepted-submissions.query.ts';
import { pageReport, reportBatches, type ReportRecord } from './tx-reports.repository.ts';
import type { TxReportListResponse, TxReportQuery, TxReportRow } from './tx-reports.schemas.ts';

/** The TX Reports screen's columns (docs/behaviour.md#tx-reports), the header of its download. */
export const TX_REPORT_CSV_HEADER = [
  'S.No', 'Timestamp', 'Payment Tx(s)', 'Client code', 'Tx Size (vBytes)', 'AVG FEERATE (SAT/VBYTE)', 'Slipstream Multiple', 'Revenue (sats)', 'Premium (Sats)', 'Public network', 'Public network by policy',
] as const;

/**
 * What a submission pays above the market rate when it was priced, in whole
 * sats: max(0, fee − round(market_rate × vsize)). The market price of its
 * size is rounded to a whole sat, as every amount is (docs/architecture.md, convention
 * 5); a fee under the market (a discounted client) earned no premium, not a
 * negative one. Unknown when any part was not recorded.
 */
export function premiumSats(fee: number | null, marketRate: number | null, vsize: number | null): number | null {
  if (fee === null || marketRate === null || vsize === null) return null;
  return Math.max(0, fee - Math.round(marketRate * vsize));
}

function reportRow(record: ReportRecord): TxReportRow {
  const single = record.kind === 1;
  return {
    id: `${single ? 'tx' : 'package'}-${record.id}`,
    kind: single ? 'tx' : 'package',
    timestamp: record.created_at.toISOString(),
    txid: single ? record.txid! : record.txids!,
    client_code: record.client_code,
    size_bytes: record.size,
    fee_rate: record.fee_rate,
    slipstream_multiplier: record.multiplier,
    revenue: record.fee,
    premium: premiumSats(record.fee, record.market_rate, record.size),
    public_network: publicNetwork(record),
    public_network_by_policy: record.relay_policies,
  };
}

/** 'standard', 'non-standard: <Core's code>' or 'unknown'; null when not judged (a row from before the oracle). */
function publicNetwork(record: ReportRecord): string | null {
  if (record.standard_verdict === null) return null;
  return record.standard_verdict === 'non-standard' ? `non-standard: ${record.standard_reason ?? 'other'}` : record.standard_verdict;
}

/** A package's ids share one cell, comma-separated (the form the submit page takes a package in). */
function reportCells(sno: number, row: TxReportRow): CsvCell[] {
  const txid = Array.isArray(row.txid) ? row.txid.join(',') : row.txid;
  return [sno, row.timestamp, txid, row.client_code, row.size_bytes, row.fee_rate, row.slipstream_multiplier, row.revenue, row.premium, row.public_network, row.public_network_by_policy];
}

async function* numbered(batches: AsyncIterable<ReportRecord[]>): AsyncGenerator<CsvCell[][]> {
  let sno = 0;
  for await (const batch of batches) yield batch.map((record) => reportCells(++sno, reportRow(record)));
}

export interface TxReportService {
  list(query: TxReportQuery): Promise<TxReportListResponse>;
  /** Every matching row as CSV, streamed (docs/behaviour.md#downloads: tx-report-{timestamp}.csv). */
  download(query: TxReportQuery): Promise<CsvDownload>;
}

export function createTxReportService(deps: { db: Queryable; clock: Clock }): TxReportService {
  const { db, clock } = deps;
  return {
    async list(query) {
      const window = pageWindow(query);
      const { records, total } = await pageReport(db, submissionFilters(query), window);
      return { result: records.map(reportRow), total_pages: totalPages(total, window.limit), total_records: total };
    },

    async download(query) {
      const filters = submissionFilters(query);
      return {
        filename: `tx-report-${csvFileTimestamp(clock.now())}.csv`,
        body: await csvStream(TX_REPORT_CSV_HEADER, numbered(reportBatches(db, filters))),
      };
    },
  };
}
