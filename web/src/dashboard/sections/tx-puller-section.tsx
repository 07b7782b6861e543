import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useList, useListDownload, type FilterName } from '../../api/list-query.ts';
import { SUBMISSION_TYPES, TX_PULLER, type PullerRow, type SubmissionType } from '../../api/lists.ts';
import { fetchPulledTxHex } from '../../api/tx-puller-hex.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import type { Column } from '../../components/data-table/data-table.tsx';
import type { FilterField } from '../../components/data-table/filter-bar.tsx';
import { serialNumber } from '../../components/data-table/page-sizes.ts';
import { useListState } from '../../components/data-table/use-list-state.ts';
import { count, feeRate, formatDateTime, shortTxid } from '../../lib/format.ts';
import { sectionFor } from '../dashboard-sections.ts';
import { DownloadButton } from './download-button.tsx';
import { FilteredList } from './filtered-list.tsx';

const TITLE = sectionFor('txPuller').title;

/** docs/behaviour.md#tx-puller: two tabs, single transactions first; the tab is in the address like the section. */
const TABS: ReadonlyArray<{ id: SubmissionType; label: string }> = [
  { id: 'tx_submissions', label: 'Tx Submissions' },
  { id: 'package_submissions', label: 'Package Submissions' },
];

const FIELDS: ReadonlyArray<FilterField<FilterName<(typeof TX_PULLER)[SubmissionType]>>> = [
  { kind: 'text', name: 'client_code', label: 'Client Code' },
  { kind: 'text', name: 'txid', label: 'Tx ID' },
  { kind: 'dates', from: 'from_date', to: 'to_date' },
];

function tabFor(value: string | null): SubmissionType {
  return SUBMISSION_TYPES.find((type) => type === value) ?? 'tx_submissions';
}

/**
 * docs/behaviour.md#tx-puller: the transactions and packages the node
 * accepted, newest first, with their hex to pull, filters and a CSV download
 * of everything the filters match. Every dashboard user may view and
 * download (docs/behaviour.md#roles-and-permissions).
 */
export function TxPullerSection({ isAdmin }: { isAdmin: boolean }) {
  const [params] = useSearchParams();
  const tab = tabFor(params.get('tab'));
  return (
    <section className="section" aria-labelledby="section-title">
      <div className="section-heading">
        <h1 id="section-title">{TITLE}</h1>
        <PullerDownload type={tab} />
      </div>
      {/* Each tab is its own address, so these are links; the link carries only section and tab, which resets filters and page. */}
      <nav className="tabs" aria-label={TITLE}>
        {TABS.map((t) => (
          <Link key={t.id} data-label={t.label} aria-current={t.id === tab ? 'page' : undefined} to={{ search: `?section=txPuller&tab=${t.id}` }}>
            {t.label}
          </Link>
        ))}
      </nav>
      {/* A new tab is a new list: nothing typed in the other tab's filter bar carries over. */}
      <PullerList key={tab} type={tab} isAdmin={isAdmin} />
    </section>
  );
}

/** A txid linked to its status page, shortened, with a copy button. */
function TxidCell({ txid }: { txid: string }) {
  return (
    <span className="code-cell">
      <Link to={{ pathname: '/status', search: `?txid=${encodeURIComponent(txid)}` }} title={txid}>
        <code>{shortTxid(txid)}</code>
      </Link>
      <CopyButton text={txid} label={`Copy Tx ID ${txid}`} copiedMessage="Tx ID copied!" />
    </span>
  );
}

/** A transaction's hex, shortened (the page carries it so), with a copy button that fetches the whole of it. */
function HexCell({ hex, txid, load }: { hex: string; txid: string; load: () => Promise<string> }) {
  return (
    <span className="code-cell">
      <code>{shortTxid(hex)}</code>
      <CopyButton load={load} label={`Copy Tx Hex of ${txid}`} copiedMessage="Tx Hex copied!" />
    </span>
  );
}

/** One value, or a package's list of them, one per line. */
function Each({ items, render }: { items: string[]; render: (item: string, index: number) => ReactNode }) {
  if (items.length === 1) return render(items[0]!, 0);
  return (
    <ul className="change-list">
      {items.map((item, index) => (
        <li key={index}>{render(item, index)}</li>
      ))}
    </ul>
  );
}

const txidsOf = (row: PullerRow) => ('txids' in row ? row.txids : [row.txid]);
const hexesOf = (row: PullerRow) => ('txs_hex' in row ? row.txs_hex : [row.tx_hex]);
const multiple = (value: number | null) => (value === null ? 'N/A' : `${value.toFixed(2)}x`);

function PullerList({ type, isAdmin }: { type: SubmissionType; isAdmin: boolean }) {
  const { list, query } = useList(TX_PULLER[type]);
  const label = TABS.find((t) => t.id === type)!.label;
  const columns: Column<PullerRow>[] = [
    { header: 'Sno', cell: (_row, index) => serialNumber(list.page, list.limit, index) },
    { header: 'Client Code', cell: (row) => row.client_code ?? 'N/A' },
    { header: 'Timestamp', cell: (row) => formatDateTime(row.timestamp) },
    { header: 'Tx ID', cell: (row) => <Each items={txidsOf(row)} render={(txid) => <TxidCell txid={txid} />} /> },
    {
      header: 'Tx Hex',
      cell: (row) => {
        const txids = txidsOf(row);
        return <Each items={hexesOf(row)} render={(hex, index) => <HexCell hex={hex} txid={txids[index] ?? ''} load={() => fetchPulledTxHex(row.id, type, index)} />} />;
      },
    },
    { header: 'TX SIZE', cell: (row) => count(row.tx_size, ' vB') },
    { header: 'FeeRate', cell: (row) => feeRate(row.fee_rate) },
    { header: 'Total Fee', cell: (row) => count(row.total_fee, ' sats') },
    { header: 'Slipstream Multiple', cell: (row) => multiple(row.multiplier) },
  ];
  return <FilteredList label={label} fields={FIELDS} list={list} query={query} columns={columns} isAdmin={isAdmin} />;
}

/** Downloads what the tab's applied filters (those in the address, not what is typed) select. */
function PullerDownload({ type }: { type: SubmissionType }) {
  const { filters } = useListState(TX_PULLER[type].filters);
  // docs/behaviour.md#downloads: tx-puller-{type}-report-{timestamp}.csv, the server's name.
  const download = useListDownload(TX_PULLER[type], `tx-puller-${type}-report.csv`);
  return <DownloadButton busy={download.isPending} onDownload={() => download.mutate(filters)} />;
}
