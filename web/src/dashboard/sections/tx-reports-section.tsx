import { useInfo } from '../../api/getinfo.ts';
import { useList, useListDownload, type FilterName } from '../../api/list-query.ts';
import { TX_REPORTS, type TxReportRow } from '../../api/lists.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import type { Column } from '../../components/data-table/data-table.tsx';
import type { FilterField } from '../../components/data-table/filter-bar.tsx';
import { serialNumber } from '../../components/data-table/page-sizes.ts';
import { count, formatDateTime, shortTxid } from '../../lib/format.ts';
import { explorerTxUrl } from '../../public/explorer.ts';
import { sectionFor } from '../dashboard-sections.ts';
import { DownloadButton } from './download-button.tsx';
import { FilteredList } from './filtered-list.tsx';

const TITLE = sectionFor('reports').title;

const FIELDS: ReadonlyArray<FilterField<FilterName<typeof TX_REPORTS>>> = [
  { kind: 'text', name: 'txid', label: 'Transaction' },
  { kind: 'text', name: 'client_code', label: 'Client Code' },
  { kind: 'dates', from: 'from_date', to: 'to_date' },
];

/** docs/behaviour.md#tx-reports: a shortened txid, linked to the network's block explorer, which regtest has none of. */
function PaymentTx({ txid, network }: { txid: string; network: string | undefined }) {
  const url = explorerTxUrl(network, txid);
  const text = <code>{shortTxid(txid)}</code>;
  return (
    <span className="code-cell">
      {url ? (
        <a href={url} target="_blank" rel="noopener noreferrer" title={txid}>
          {text}
        </a>
      ) : (
        <span title={txid}>{text}</span>
      )}
      <CopyButton text={txid} label={`Copy payment txid ${txid}`} copiedMessage="Payment Txid copied!" />
    </span>
  );
}

const fixed = (value: number | null, suffix = '') => (value === null ? 'N/A' : `${value.toFixed(2)}${suffix}`);

/**
 * docs/behaviour.md#tx-reports: what each accepted transaction and package
 * earned, newest first (revenue is its fee; premium what the fee pays above
 * the market rate), with filters and a CSV download of everything the
 * filters match. Every dashboard user may view and download (docs/behaviour.md#roles-and-permissions).
 */
export function TxReportsSection({ isAdmin }: { isAdmin: boolean }) {
  const { list, query } = useList(TX_REPORTS);
  // docs/behaviour.md#downloads: tx-report-{timestamp}.csv, the server's name.
  const download = useListDownload(TX_REPORTS, 'tx-report.csv');
  const network = useInfo().data?.network;
  const columns: Column<TxReportRow>[] = [
    { header: 'S.No', cell: (_row, index) => serialNumber(list.page, list.limit, index) },
    { header: 'Timestamp', cell: (row) => formatDateTime(row.timestamp) },
    {
      header: 'Payment Tx(s)',
      cell: (row) =>
        Array.isArray(row.txid) ? (
          <ul className="change-list">
            {row.txid.map((txid) => (
              <li key={txid}>
                <PaymentTx txid={txid} network={network} />
              </li>
            ))}
          </ul>
        ) : (
          <PaymentTx txid={row.txid} network={network} />
        ),
    },
    { header: 'Client code', cell: (row) => row.client_code ?? 'N/A' },
    { header: 'Tx Size (vBytes)', cell: (row) => count(row.size_bytes) },
    { header: 'AVG FEERATE (SAT/VBYTE)', cell: (row) => fixed(row.fee_rate) },
    { header: 'Slipstream Multiple', cell: (row) => fixed(row.slipstream_multiplier, 'x') },
    { header: 'Revenue (sats)', cell: (row) => count(row.revenue) },
    { header: 'Premium (Sats)', cell: (row) => count(row.premium) },
    // What customers need the pool for: would ordinary nodes have relayed it? (null: a package, or from before the oracle)
    {
      header: 'Public network',
      // Bitcoin Core 30's verdict, and under it every relay policy's when it was judged that way.
      cell: (row) => (
        <>
          {row.public_network ?? 'N/A'}
          {row.public_network_by_policy && <span className="hint">{row.public_network_by_policy}</span>}
        </>
      ),
    },
  ];
  return (
    <section className="section" aria-labelledby="section-title">
      <div className="section-heading">
        <h1 id="section-title">{TITLE}</h1>
        {/* What the applied filters (those in the address, not what is typed) select. */}
        <DownloadButton busy={download.isPending} onDownload={() => download.mutate(list.filters)} />
      </div>
      <FilteredList label={TITLE} fields={FIELDS} list={list} query={query} columns={columns} isAdmin={isAdmin} />
    </section>
  );
}
