import { useList, type FilterName } from '../../api/list-query.ts';
import { CLIENT_LOGS, DISCOUNT_LOGS, SETTING_LOGS, type ClientLogRow, type DiscountLogRow, type SettingLogRow } from '../../api/lists.ts';
import type { Column } from '../../components/data-table/data-table.tsx';
import type { FilterField } from '../../components/data-table/filter-bar.tsx';
import { serialNumber } from '../../components/data-table/page-sizes.ts';
import { formatDateTime } from '../../lib/format.ts';
import { changeLines } from './change-values.ts';
import { titleCase } from './labels.ts';
import { FilteredList } from './filtered-list.tsx';

/**
 * The Setting, Discount and Client Logs tabs (docs/behaviour.md#logs). The
 * Email column shows the email from the staff member's sign-in token, their
 * username beside it; the Email filter matches the email (or, for a row
 * without one, such as a local account's, the username).
 */

const ACTION_OPTIONS = [
  { value: '', label: 'All' },
  { value: 'Create', label: 'Create' },
  { value: 'Update', label: 'Update' },
  { value: 'Delete', label: 'Delete' },
];

const orNone = (value: string | null) => (value === null || value === '' ? 'None' : value);

/** Who made the change: their email, with their username beside it (the username alone when the token had no email). */
function StaffCell({ email, username }: { email: string | null; username: string }) {
  if (!email) return <>{username}</>;
  return (
    <>
      {email} <span className="staff-username">({username})</span>
    </>
  );
}

function ChangeCell({ previous, updated }: { previous: string | null; updated: string | null }) {
  const lines = changeLines(previous, updated);
  if (lines.length === 0) return <>None</>;
  return (
    <ul className="change-list">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}

const SETTING_FIELDS: ReadonlyArray<FilterField<FilterName<typeof SETTING_LOGS>>> = [
  { kind: 'text', name: 'item', label: 'Name' },
  { kind: 'text', name: 'username', label: 'Email' },
];

export function SettingLogs({ isAdmin }: { isAdmin: boolean }) {
  const { list, query } = useList(SETTING_LOGS);
  const columns: Column<SettingLogRow>[] = [
    { header: 'Sno', cell: (_row, index) => serialNumber(list.page, list.limit, index) },
    { header: 'Email', cell: (row) => <StaffCell email={row.email} username={row.username} /> },
    { header: 'Name', cell: (row) => titleCase(row.item) },
    { header: 'Previous Value', cell: (row) => <span className="wrap-cell">{orNone(row.previous_value)}</span> },
    { header: 'Updated Value', cell: (row) => <span className="wrap-cell">{orNone(row.updated_value)}</span> },
    { header: 'Updated At', cell: (row) => formatDateTime(row.updated_time) },
  ];
  return <FilteredList label="Setting Logs" fields={SETTING_FIELDS} list={list} query={query} columns={columns} isAdmin={isAdmin} />;
}

const DISCOUNT_FIELDS: ReadonlyArray<FilterField<FilterName<typeof DISCOUNT_LOGS>>> = [
  { kind: 'text', name: 'client_code', label: 'Client Code' },
  { kind: 'text', name: 'username', label: 'Email' },
  { kind: 'select', name: 'action', label: 'Action', options: ACTION_OPTIONS },
];

export function DiscountLogs({ isAdmin }: { isAdmin: boolean }) {
  const { list, query } = useList(DISCOUNT_LOGS);
  const columns: Column<DiscountLogRow>[] = [
    { header: 'Sno', cell: (_row, index) => serialNumber(list.page, list.limit, index) },
    { header: 'Email', cell: (row) => <StaffCell email={row.email} username={row.username} /> },
    { header: 'Action', cell: (row) => row.action },
    { header: 'Client Code', cell: (row) => orNone(row.client_code) },
    { header: 'Change', cell: (row) => <ChangeCell previous={row.previous_values} updated={row.updated_values} /> },
    { header: 'Action Time', cell: (row) => formatDateTime(row.action_time) },
  ];
  return <FilteredList label="Discount Logs" fields={DISCOUNT_FIELDS} list={list} query={query} columns={columns} isAdmin={isAdmin} />;
}

const CLIENT_FIELDS: ReadonlyArray<FilterField<FilterName<typeof CLIENT_LOGS>>> = [
  { kind: 'text', name: 'username', label: 'Email' },
  { kind: 'text', name: 'client_name', label: 'Client Name' },
  { kind: 'select', name: 'action', label: 'Action', options: ACTION_OPTIONS },
];

export function ClientLogs({ isAdmin }: { isAdmin: boolean }) {
  const { list, query } = useList(CLIENT_LOGS);
  const columns: Column<ClientLogRow>[] = [
    { header: 'Sno', cell: (_row, index) => serialNumber(list.page, list.limit, index) },
    { header: 'Email', cell: (row) => <StaffCell email={row.email} username={row.username} /> },
    { header: 'Action', cell: (row) => row.action },
    { header: 'Client Name', cell: (row) => orNone(row.client_name) },
    { header: 'Change', cell: (row) => <ChangeCell previous={row.previous_values} updated={row.updated_values} /> },
    { header: 'Timestamp', cell: (row) => formatDateTime(row.timestamp) },
  ];
  return <FilteredList label="Client Logs" fields={CLIENT_FIELDS} list={list} query={query} columns={columns} isAdmin={isAdmin} />;
}
