import type { UseQueryResult } from '@tanstack/react-query';
import type { ListState } from '../../components/data-table/use-list-state.ts';

/** The table says 'Loading data...' on the first load and while another page or filter is on its way. */
export function tableLoading(query: Pick<UseQueryResult, 'isPending' | 'isFetching' | 'isPlaceholderData'>): boolean {
  return query.isPending || (query.isFetching && query.isPlaceholderData);
}

/** SPEC.md section 4: Clear drops the filters and reloads unfiltered, even when none was applied. */
export function clearAndReload<F extends string>(list: ListState<F>, query: Pick<UseQueryResult, 'refetch'>): void {
  if (Object.values<string>(list.filters).every((value) => value === '')) void query.refetch();
  list.clear();
}
