import type { UseQueryResult } from '@tanstack/react-query';
import type { TableFailure } from '../../components/data-table/data-table.tsx';
import type { ListState } from '../../components/data-table/use-list-state.ts';

/** The table says 'Loading data...' on the first load and while another page or filter is on its way. */
export function tableLoading(query: Pick<UseQueryResult, 'isPending' | 'isFetching' | 'isPlaceholderData'>): boolean {
  return query.isPending || (query.isFetching && query.isPlaceholderData);
}

/** docs/behaviour.md#tables-filters-and-dates: Clear drops the filters and reloads unfiltered, even when none was applied. */
export function clearAndReload<F extends string>(list: ListState<F>, query: Pick<UseQueryResult, 'refetch'>): void {
  if (Object.values<string>(list.filters).every((value) => value === '')) void query.refetch();
  list.clear();
}

/** A load that failed with nothing to show: the table says so and offers a retry (the toast has already said it too). */
export function tableFailure(query: Pick<UseQueryResult, 'isError' | 'error' | 'data' | 'refetch'>): TableFailure | null {
  if (!query.isError || query.data !== undefined) return null;
  return { message: query.error?.message || 'Something went wrong', retry: () => void query.refetch() };
}
