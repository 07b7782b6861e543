import { useState } from 'react';
import { useList, type FilterName } from '../../api/list-query.ts';
import { FAILED_TXS, type FailedTxRow } from '../../api/lists.ts';
import { RETRY_SUCCESS_MESSAGE, useIdsBeingRetried, useRetryFailedTxs } from '../../api/failed-txs-retry.ts';
import { fetchFailedTxHex } from '../../api/failed-tx-hex.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { DataTable, type Column } from '../../components/data-table/data-table.tsx';
import { FilterBar, type FilterField } from '../../components/data-table/filter-bar.tsx';
import { serialNumber } from '../../components/data-table/page-sizes.ts';
import { formatDateTime, shortTxid } from '../../lib/format.ts';
import { DASHBOARD_TOAST, notify } from '../../lib/toasts.tsx';
import { sectionFor } from '../dashboard-sections.ts';
import { clearAndReload, tableFailure, tableLoading } from './list-helpers.ts';

const TITLE = sectionFor('failedtx').title;

const FIELDS: ReadonlyArray<FilterField<FilterName<typeof FAILED_TXS>>> = [
  { kind: 'text', name: 'txid', label: 'Transaction ID' },
  { kind: 'text', name: 'client_code', label: 'Client Code' },
  { kind: 'dates', from: 'from_date', to: 'to_date' },
  // docs/behaviour.md#failed-transactions: Failed by default ('' in the address), or Timeout.
  { kind: 'select', name: 'tx_status', label: 'Status', options: [{ value: '', label: 'Failed' }, { value: 'Timeout', label: 'Timeout' }] },
];

/** Why a viewer's retry is off: the tooltip and the note beside the button. */
export const VIEWER_RETRY_NOTE = 'Only administrators can retry transactions.';

const NO_SELECTION: ReadonlySet<number> = new Set();

/**
 * docs/behaviour.md#failed-transactions: open failures (Failed or Timeout)
 * with their reasons. Staff pick rows, or every match across the pages at
 * once, and administrators move them into retry; the outcome is not shown
 * here. Only Retry Tx is for administrators (docs/behaviour.md#roles-and-permissions): staff who
 * view only keep the selection and its count, with the retry disabled and
 * saying why, and no per-row Retry column.
 */
export function FailedTxsSection({ isAdmin }: { isAdmin: boolean }) {
  const { list, query } = useList(FAILED_TXS);
  const [selected, setSelected] = useState(NO_SELECTION);
  // The selection holds across pages and page sizes; other filters are another list, so it starts again.
  const [filtersSeen, setFiltersSeen] = useState(list.filters);
  if (filtersSeen !== list.filters) {
    setFiltersSeen(list.filters);
    setSelected(NO_SELECTION);
  }
  // Remounting the filter bar after a retry drops what was typed but never searched, too.
  const [filterBarKey, setFilterBarKey] = useState(0);
  const afterRetry = () => {
    notify.success(RETRY_SUCCESS_MESSAGE, DASHBOARD_TOAST);
    // docs/behaviour.md#failed-transactions: after a retry the selection and the filters reset, on page 1 (the list reloads itself).
    setSelected(NO_SELECTION);
    setFilterBarKey((key) => key + 1);
    list.clear();
  };
  // Two mutations, so that 'Retrying...' shows on the control that was used.
  const retrySelected = useRetryFailedTxs(afterRetry);
  const retryRow = useRetryFailedTxs(afterRetry);
  const beingRetried = useIdsBeingRetried();

  const allIds = query.data?.ids ?? [];
  const allSelected = allIds.length > 0 && allIds.every((id) => selected.has(id));
  const toggle = (id: number, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const columns: Column<FailedTxRow>[] = [
    {
      header: 'Select',
      cell: (row) => (
        <input type="checkbox" aria-label={`Select transaction ${row.txid}`} checked={selected.has(row.id)} onChange={(e) => toggle(row.id, e.target.checked)} />
      ),
    },
    { header: 'Sno', cell: (_row, index) => serialNumber(list.page, list.limit, index) },
    {
      header: 'Transaction ID',
      cell: (row) => (
        <span className="code-cell">
          <code title={row.txid}>{shortTxid(row.txid)}</code>
          <CopyButton text={row.txid} label={`Copy transaction ID ${row.txid}`} copiedMessage="Transaction ID copied!" />
        </span>
      ),
    },
    {
      header: 'Transaction Hex',
      cell: (row) => (
        <span className="code-cell">
          <code>{shortTxid(row.tx_hex)}</code>
          {/* The list carries the hex shortened: the whole of it is fetched when copied. */}
          <CopyButton load={() => fetchFailedTxHex(row.id)} label={`Copy transaction hex of ${row.txid}`} copiedMessage="Transaction hex copied!" />
        </span>
      ),
    },
    { header: 'Client code', cell: (row) => row.client_code ?? 'N/A' },
    { header: 'Timestamp', cell: (row) => formatDateTime(row.timestamp) },
    {
      header: 'Reason',
      cell: (row) => (
        <ul className="change-list">
          {row.errors.map((error, index) => (
            <li key={index}>{error}</li>
          ))}
        </ul>
      ),
    },
    {
      header: 'Retry Tx',
      adminOnly: true,
      sticky: true,
      cell: (row) => {
        const busy = beingRetried.has(row.id);
        return (
          <button
            type="button"
            className="button small"
            aria-label={busy ? `Retrying transaction ${row.txid}` : `Retry transaction ${row.txid}`}
            disabled={busy}
            onClick={() => retryRow.mutate([row.id])}
          >
            {busy ? 'Retrying...' : 'Retry'}
          </button>
        );
      },
    },
  ];

  return (
    <section className="section" aria-labelledby="section-title">
      <h1 id="section-title">{TITLE}</h1>
      <FilterBar key={filterBarKey} fields={FIELDS} applied={list.filters} onSearch={list.search} onClear={() => clearAndReload(list, query)} />
      <div className="selection-bar">
        <label>
          <input
            type="checkbox"
            checked={allSelected}
            disabled={allIds.length === 0}
            onChange={(e) => setSelected(e.target.checked ? new Set(allIds) : NO_SELECTION)}
          />
          Select all {allIds.length} {allIds.length === 1 ? 'transaction' : 'transactions'}
        </label>
        {/* Announced politely as boxes are ticked; the button stays outside so it is not read again each time. */}
        <p role="status" aria-live="polite">
          Total selected: {selected.size}
        </p>
        <button
          type="button"
          className="button primary"
          disabled={!isAdmin || selected.size === 0 || retrySelected.isPending}
          {...(isAdmin ? {} : { title: VIEWER_RETRY_NOTE, 'aria-describedby': 'retry-note' })}
          onClick={() => retrySelected.mutate([...selected])}
        >
          {retrySelected.isPending ? 'Retrying...' : 'Retry Selected Tx'}
        </button>
        {!isAdmin && (
          <span id="retry-note" className="selection-note">
            {VIEWER_RETRY_NOTE}
          </span>
        )}
      </div>
      <DataTable
        label={TITLE}
        columns={columns}
        rows={query.data?.result ?? []}
        rowKey={(row) => String(row.id)}
        loading={tableLoading(query)}
        failure={tableFailure(query)}
        total={query.data?.total_records ?? 0}
        page={list.page}
        limit={list.limit}
        isAdmin={isAdmin}
        onPageChange={list.setPage}
        onLimitChange={list.setLimit}
      />
    </section>
  );
}
