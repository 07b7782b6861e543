import type { UseQueryResult } from '@tanstack/react-query';
import { DataTable, type Column } from '../../components/data-table/data-table.tsx';
import { FilterBar, type FilterField } from '../../components/data-table/filter-bar.tsx';
import type { ListState } from '../../components/data-table/use-list-state.ts';
import { clearAndReload, tableFailure, tableLoading } from './list-helpers.ts';

interface ListAnswer<Row> {
  result: Row[];
  total_records: number;
}

export interface FilteredListProps<Row extends { id: number | string }, F extends string> {
  label: string;
  fields: ReadonlyArray<FilterField<F>>;
  list: ListState<F>;
  query: UseQueryResult<ListAnswer<Row>>;
  columns: Column<Row>[];
  isAdmin: boolean;
}

/** A server-paged list with its filter bar: the wiring every dashboard list shares. */
export function FilteredList<Row extends { id: number | string }, F extends string>(props: FilteredListProps<Row, F>) {
  const { list, query } = props;
  return (
    <>
      <FilterBar fields={props.fields} applied={list.filters} onSearch={list.search} onClear={() => clearAndReload(list, query)} />
      <DataTable
        label={props.label}
        columns={props.columns}
        rows={query.data?.result ?? []}
        rowKey={(row) => String(row.id)}
        loading={tableLoading(query)}
        failure={tableFailure(query)}
        total={query.data?.total_records ?? 0}
        page={list.page}
        limit={list.limit}
        isAdmin={props.isAdmin}
        onPageChange={list.setPage}
        onLimitChange={list.setLimit}
      />
    </>
  );
}
