import { useState } from 'react';
import { useList, type FilterName } from '../../api/list-query.ts';
import { DISCOUNTS, type DiscountRow } from '../../api/lists.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import type { Column } from '../../components/data-table/data-table.tsx';
import type { FilterField } from '../../components/data-table/filter-bar.tsx';
import { serialNumber } from '../../components/data-table/page-sizes.ts';
import { sectionFor } from '../dashboard-sections.ts';
import { DiscountDialog } from './discount-dialog.tsx';
import type { DialogState } from './dialog-state.ts';
import { activeLabel, dateOnly, percent, utcDate } from './labels.ts';
import { FilteredList } from './filtered-list.tsx';

const TITLE = sectionFor('discounts').title;

const FIELDS: ReadonlyArray<FilterField<FilterName<typeof DISCOUNTS>>> = [
  { kind: 'text', name: 'client_code', label: 'Client Code' },
  { kind: 'dates', from: 'from_date', to: 'to_date' },
  {
    kind: 'select',
    name: 'status',
    label: 'Status',
    options: [
      { value: '', label: 'All' },
      { value: 'true', label: 'Active' },
      { value: 'false', label: 'Inactive' },
    ],
  },
];

/**
 * docs/behaviour.md#discount-management: the codes issued to clients, with
 * their filters; administrators add, edit and delete them in one modal.
 */
export function DiscountsSection({ isAdmin }: { isAdmin: boolean }) {
  const { list, query } = useList(DISCOUNTS);
  const [dialog, setDialog] = useState<DialogState<DiscountRow>>(null);
  const columns: Column<DiscountRow>[] = [
    { header: 'Sno', cell: (_row, index) => serialNumber(list.page, list.limit, index) },
    {
      header: 'Code',
      cell: (row) => (
        <span className="code-cell">
          <code>{row.code}</code>
          <CopyButton text={row.code} label={`Copy client code ${row.code}`} copiedMessage="Client code copied!" />
        </span>
      ),
    },
    { header: 'Client', cell: (row) => row.client_name },
    { header: 'Created At', nowrap: true, cell: (row) => utcDate(row.created_at) },
    { header: 'Description', cell: (row) => <span className="wrap-cell">{row.description ?? ''}</span> },
    { header: 'Discount (%)', cell: (row) => percent(row.discount_percentage) },
    { header: 'Valid From', nowrap: true, cell: (row) => dateOnly(row.valid_from) },
    { header: 'Valid Until', nowrap: true, cell: (row) => dateOnly(row.valid_until) },
    { header: 'Status', cell: (row) => activeLabel(row.status) },
    {
      header: 'Actions',
      adminOnly: true,
      sticky: true,
      cell: (row) => (
        <span className="row-actions">
          <button type="button" className="button small" aria-label={`Edit client code ${row.code}`} onClick={() => setDialog({ mode: 'edit', row })}>
            Edit
          </button>
          <button type="button" className="button small danger" aria-label={`Delete client code ${row.code}`} onClick={() => setDialog({ mode: 'delete', row })}>
            Delete
          </button>
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
            + Add New Discount
          </button>
        )}
      </div>
      <FilteredList label={TITLE} fields={FIELDS} list={list} query={query} columns={columns} isAdmin={isAdmin} />
      {isAdmin && dialog && <DiscountDialog state={dialog} onClose={() => setDialog(null)} />}
    </section>
  );
}
