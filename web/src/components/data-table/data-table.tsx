import type { ReactNode } from 'react';
import { PAGE_SIZES, pageCount, rangeLabel } from './page-sizes.ts';

export interface Column<Row> {
  header: string;
  cell: (row: Row, index: number) => ReactNode;
  /** Hidden for staff who view only (the Actions columns, docs/behaviour.md#roles-and-permissions). */
  adminOnly?: boolean;
  /** Pinned to the right edge while the table scrolls sideways: a row's actions stay in reach. */
  sticky?: boolean;
  /** Kept on one line where cells may wrap (a date must not break at its hyphens). */
  nowrap?: boolean;
}

function cellClass(column: { sticky?: boolean; nowrap?: boolean }): string | undefined {
  const names = [column.sticky ? 'sticky-cell' : '', column.nowrap ? 'nowrap-cell' : ''].filter(Boolean).join(' ');
  return names || undefined;
}

/** A load that failed: said in the table, with a way to ask again. */
export interface TableFailure {
  message: string;
  retry: () => void;
}

export interface DataTableProps<Row> {
  /** Names the table for assistive technology. */
  label: string;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row, index: number) => string;
  loading: boolean;
  total: number;
  page: number;
  limit: number;
  isAdmin: boolean;
  onPageChange: (page: number) => void;
  onLimitChange: (limit: number) => void;
  /** The last load failed (and no rows are shown): not an empty list. */
  failure?: TableFailure | null;
}

/**
 * The dashboard's one table (docs/behaviour.md#tables-filters-and-dates): 'Loading data...' while
 * loading, 'No data found' when empty, rows per page, first/previous/next/last
 * and the 'from - to of total' label. Paging is the server's; this only asks.
 */
export function DataTable<Row>(props: DataTableProps<Row>) {
  const { columns, rows, loading, total, page, limit } = props;
  const visible = columns.filter((c) => props.isAdmin || !c.adminOnly);
  const last = pageCount(limit, total);
  const failure = loading ? null : (props.failure ?? null);
  // The state line sits below the scrolling table, so a phone sees it without scrolling sideways.
  const state = loading ? 'Loading data...' : failure ? null : rows.length === 0 ? 'No data found' : null;
  let body: ReactNode = null;
  if (state === null && failure === null) {
    body = rows.map((row, index) => (
      <tr key={props.rowKey(row, index)}>
        {visible.map((column) => (
          <td key={column.header} className={cellClass(column)}>
            {column.cell(row, index)}
          </td>
        ))}
      </tr>
    ));
  }
  return (
    <div className="data-table">
      {/* A wide table scrolls sideways: the keyboard must be able to reach and scroll it too (WCAG 2.1.1).
          Its name is not the section's: two landmarks of one name cannot be told apart (axe landmark-unique). */}
      <div className="table-scroll" tabIndex={0} role="region" aria-label={`${props.label} table`}>
        <table aria-label={props.label} aria-busy={loading}>
          <thead>
            <tr>
              {visible.map((column) => (
                <th key={column.header} scope="col" className={column.sticky ? 'sticky-cell' : undefined}>
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{body}</tbody>
        </table>
      </div>
      {state && (
        <p className="table-state" role="status">
          {state}
        </p>
      )}
      {/* A failed load is not an empty list: it says what went wrong and offers to ask again. */}
      {failure && (
        <div className="table-state table-failure" role="alert">
          <p>Could not load the list: {failure.message}</p>
          <button type="button" className="button" onClick={failure.retry}>
            Retry
          </button>
        </div>
      )}
      <div className="pager">
        <label>
          Rows per page
          <select value={limit} onChange={(e) => props.onLimitChange(Number(e.target.value))}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
        <span className="range" aria-live="polite">
          {rangeLabel(page, limit, total)}
        </span>
        <span className="pager-buttons">
          {/* Disabled only at the ends: disabling the focused button while a page loads would drop keyboard focus. */}
          <PagerButton label="First page" text="«" disabled={page <= 1} onClick={() => props.onPageChange(1)} />
          <PagerButton label="Previous page" text="‹" disabled={page <= 1} onClick={() => props.onPageChange(page - 1)} />
          <PagerButton label="Next page" text="›" disabled={page >= last} onClick={() => props.onPageChange(page + 1)} />
          <PagerButton label="Last page" text="»" disabled={page >= last} onClick={() => props.onPageChange(last)} />
        </span>
      </div>
    </div>
  );
}

function PagerButton(props: { label: string; text: string; disabled: boolean; onClick: () => void }) {
  return (
    <button type="button" className="icon-button" aria-label={props.label} title={props.label} disabled={props.disabled} onClick={props.onClick}>
      {props.text}
    </button>
  );
}
