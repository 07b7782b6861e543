import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useList, type FilterName } from '../../api/list-query.ts';
import { AUDIT_LOGS, type AuditLogRow } from '../../api/lists.ts';
import type { Column } from '../../components/data-table/data-table.tsx';
import type { FilterField } from '../../components/data-table/filter-bar.tsx';
import { FilteredList } from './filtered-list.tsx';
import { serialNumber } from '../../components/data-table/page-sizes.ts';
import { Modal } from '../../components/modal.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { ClientLogs, DiscountLogs, SettingLogs } from './change-logs.tsx';

/** docs/behaviour.md#logs: four tabs; the tab is in the address like the section. */
const TABS = [
  { id: 'audit', label: 'Audit Logs' },
  { id: 'settings', label: 'Setting Logs' },
  { id: 'discounts', label: 'Discount Logs' },
  { id: 'clients', label: 'Client Logs' },
] as const;

export function AuditLogsSection({ isAdmin }: { isAdmin: boolean }) {
  const [params] = useSearchParams();
  const tab = TABS.find((t) => t.id === params.get('tab')) ?? TABS[0];
  return (
    <section className="section" aria-labelledby="section-title">
      <h1 id="section-title">Logs</h1>
      {/* Each tab is its own address (reload and links keep it), so these are links, not an ARIA tab widget. */}
      <nav className="tabs" aria-label="Logs">
        {TABS.map((t) => (
          // A tab change resets the list: the link carries only section and tab.
          <Link key={t.id} data-label={t.label} aria-current={t.id === tab.id ? 'page' : undefined} to={{ search: `?section=audit&tab=${t.id}` }}>
            {t.label}
          </Link>
        ))}
      </nav>
      <div>
        {tab.id === 'audit' && <AuditLogs isAdmin={isAdmin} />}
        {tab.id === 'settings' && <SettingLogs isAdmin={isAdmin} />}
        {tab.id === 'discounts' && <DiscountLogs isAdmin={isAdmin} />}
        {tab.id === 'clients' && <ClientLogs isAdmin={isAdmin} />}
      </div>
    </section>
  );
}

const AUDIT_LOG_FIELDS: ReadonlyArray<FilterField<FilterName<typeof AUDIT_LOGS>>> = [
  { kind: 'text', name: 'ip_or_endpoint', label: 'IP or Endpoint' },
  { kind: 'text', name: 'client_code', label: 'Client Code' },
  { kind: 'dates', from: 'from_date', to: 'to_date' },
  { kind: 'select', name: 'method', label: 'Request Type', options: [{ value: '', label: 'All' }, { value: 'GET', label: 'GET' }, { value: 'POST', label: 'POST' }] },
  { kind: 'select', name: 'is_success', label: 'Status', options: [{ value: '', label: 'All' }, { value: 'true', label: 'Success' }, { value: 'false', label: 'Failed' }] },
  { kind: 'select', name: 'source_type', label: 'Source Type', options: [{ value: '', label: 'All' }, { value: 'Internal', label: 'Internal' }, { value: 'External', label: 'External' }] },
];

function AuditLogs({ isAdmin }: { isAdmin: boolean }) {
  const { list, query } = useList(AUDIT_LOGS);
  const [viewing, setViewing] = useState<AuditLogRow | null>(null);
  const columns: Column<AuditLogRow>[] = [
    { header: 'Sno', cell: (_row, index) => serialNumber(list.page, list.limit, index) },
    { header: 'IP Address', cell: (row) => row.ip_address ?? 'N/A' },
    { header: 'Endpoint', cell: (row) => row.endpoint ?? 'N/A' },
    { header: 'Method', cell: (row) => row.http_method ?? 'N/A' },
    { header: 'Client Code', cell: (row) => row.client_code ?? 'N/A' },
    { header: 'Requested At', cell: (row) => formatDateTime(row.request_at) },
    { header: 'Status', cell: (row) => (row.is_success ? 'Success' : 'Failed') },
    {
      header: 'Action',
      sticky: true,
      cell: (row) => (
        <button type="button" className="button small" onClick={() => setViewing(row)}>
          View
        </button>
      ),
    },
  ];
  return (
    <>
      <FilteredList label="Audit Logs" fields={AUDIT_LOG_FIELDS} list={list} query={query} columns={columns} isAdmin={isAdmin} />
      {viewing && <AuditDetails row={viewing} onClose={() => setViewing(null)} />}
    </>
  );
}

const orNone = (value: string | null | undefined) => (value === null || value === undefined || value === '' ? 'None' : value);

/** docs/behaviour.md#logs: the 'Audit Details' modal; missing values show as None or N/A. */
function AuditDetails({ row, onClose }: { row: AuditLogRow; onClose: () => void }) {
  const details: Array<[string, string]> = [
    ['IP Address', row.ip_address ?? 'N/A'],
    ['Endpoint', row.endpoint ?? 'N/A'],
    ['HTTP Method', row.http_method ?? 'N/A'],
    ['Client Code', row.client_code ?? 'N/A'],
    ['Request Time', formatDateTime(row.request_at)],
    ['Request Payload', orNone(row.request_payload)],
    ['Response Payload', orNone(row.response_payload)],
    ['Response Time (ms)', row.response_time === null ? 'N/A' : String(Math.round(row.response_time))],
    ['Error Message', orNone(row.error_message)],
    ['Source Type', row.source_type ?? 'N/A'],
    ['Success', row.is_success ? 'Yes' : 'No'],
  ];
  return (
    <Modal title="Audit Details" onClose={onClose}>
      <dl className="details">
        {details.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{term.endsWith('Payload') ? <pre>{value}</pre> : value}</dd>
          </div>
        ))}
      </dl>
    </Modal>
  );
}
