import { useState } from 'react';
import { useList, type FilterName } from '../../api/list-query.ts';
import { CLIENTS, type ClientRow } from '../../api/lists.ts';
import type { Column } from '../../components/data-table/data-table.tsx';
import type { FilterField } from '../../components/data-table/filter-bar.tsx';
import { serialNumber } from '../../components/data-table/page-sizes.ts';
import { sectionFor } from '../dashboard-sections.ts';
import { ClientDialog, type ClientDialogState } from './client-dialog.tsx';
import { FilteredList } from './filtered-list.tsx';

const TITLE = sectionFor('clientmanagement').title;

const FIELDS: ReadonlyArray<FilterField<FilterName<typeof CLIENTS>>> = [
  { kind: 'text', name: 'client_name', label: 'Client Name' },
  { kind: 'text', name: 'email', label: 'Email' },
  { kind: 'text', name: 'organization_name', label: 'Organization Name' },
];

const text = (value: string | null) => value ?? '';

/**
 * docs/behaviour.md#client-management: the client registry with its
 * filters; administrators add and edit clients, delete those that no
 * discount code refers to (is_deletable), and issue and revoke the API keys
 * a client uses for the public API's dry run.
 */
export function ClientsSection({ isAdmin }: { isAdmin: boolean }) {
  const { list, query } = useList(CLIENTS);
  const [dialog, setDialog] = useState<ClientDialogState>(null);
  const columns: Column<ClientRow>[] = [
    { header: 'Sno', cell: (_row, index) => serialNumber(list.page, list.limit, index) },
    { header: 'Client Name', cell: (row) => row.name },
    { header: 'Email', cell: (row) => text(row.email) },
    { header: 'Phone Number', cell: (row) => text(row.phone_number) },
    { header: 'Alternate Phone Number', cell: (row) => text(row.alternate_phone) },
    { header: 'Address', cell: (row) => <span className="wrap-cell">{text(row.address)}</span> },
    { header: 'Organization Name', cell: (row) => text(row.organization_name) },
    { header: 'Organization Email', cell: (row) => text(row.organization_email) },
    { header: 'Description', cell: (row) => <span className="wrap-cell">{text(row.description)}</span> },
    {
      header: 'Actions',
      adminOnly: true,
      sticky: true,
      cell: (row) => (
        <span className="row-actions">
          <button type="button" className="button small" aria-label={`Edit client ${row.name}`} onClick={() => setDialog({ mode: 'edit', row })}>
            Edit
          </button>
          <button type="button" className="button small" aria-label={`API keys of client ${row.name}`} onClick={() => setDialog({ mode: 'keys', row })}>
            Keys
          </button>
          <button type="button" className="button small" aria-label={`Webhook of client ${row.name}`} onClick={() => setDialog({ mode: 'webhook', row })}>
            Webhook
          </button>
          {/* docs/behaviour.md#client-management: delete only while nothing refers to the client. */}
          {row.is_deletable && (
            <button type="button" className="button small danger" aria-label={`Delete client ${row.name}`} onClick={() => setDialog({ mode: 'delete', row })}>
              Delete
            </button>
          )}
        </span>
      ),
    },
  ];
  return (
    <section className="section" aria-labelledby="section-title">
      <div className="section-heading">
        <h1 id="section-title">{TITLE}</h1>
        {isAdmin && (
          <button type="button" className="button primary" onClick={() => setDialog({ mode: 'add' })}>
            + Add Client
          </button>
        )}
      </div>
      <FilteredList label={TITLE} fields={FIELDS} list={list} query={query} columns={columns} isAdmin={isAdmin} />
      {isAdmin && dialog && <ClientDialog state={dialog} onClose={() => setDialog(null)} />}
    </section>
  );
}
