import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { DEFAULT_PAGE_SIZE, isPageSize, type PageSize } from './page-sizes.ts';

export interface ListState<F extends string> {
  page: number;
  limit: PageSize;
  /** Applied filters, '' when unset. */
  filters: Record<F, string>;
  setPage: (page: number) => void;
  /** docs/behaviour.md#tables-filters-and-dates: changing rows per page goes back to page 1. */
  setLimit: (limit: number) => void;
  /** Search applies the filters and goes back to page 1. */
  search: (filters: Record<F, string>) => void;
  /** Clear drops every filter and reloads unfiltered from page 1. */
  clear: () => void;
}

function positiveInt(text: string | null): number | undefined {
  if (text === null || !/^\d{1,9}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= 1 ? value : undefined;
}

/**
 * A list's filters, page and rows per page live in the address (docs/architecture.md,
 * convention 8), so reload, back and a shared link all show the same list.
 * Values that make no sense in the address fall back to the defaults.
 */
export function useListState<F extends string>(filterNames: readonly F[]): ListState<F> {
  const [params, setParams] = useSearchParams();
  const page = positiveInt(params.get('page')) ?? 1;
  const requestedLimit = positiveInt(params.get('limit'));
  const limit = requestedLimit !== undefined && isPageSize(requestedLimit) ? requestedLimit : DEFAULT_PAGE_SIZE;
  const key = filterNames.map((name) => `${name}=${params.get(name) ?? ''}`).join('&');

  const filters = useMemo(() => {
    const values = {} as Record<F, string>;
    for (const name of filterNames) values[name] = params.get(name) ?? '';
    return values;
    // `key` captures every value read here.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  const update = useCallback(
    (change: (next: URLSearchParams) => void) => {
      // Other parameters (the section and tab) stay as they are; an unchanged
      // address adds no history entry.
      const next = new URLSearchParams(params);
      change(next);
      if (next.toString() !== params.toString()) setParams(next);
    },
    [params, setParams],
  );

  return {
    page,
    limit,
    filters,
    setPage: (value) => update((next) => next.set('page', String(value))),
    setLimit: (value) =>
      update((next) => {
        next.set('limit', String(value));
        next.delete('page');
      }),
    search: (values) =>
      update((next) => {
        for (const name of filterNames) {
          const value = values[name].trim();
          if (value === '') next.delete(name);
          else next.set(name, value);
        }
        next.delete('page');
      }),
    clear: () =>
      update((next) => {
        for (const name of filterNames) next.delete(name);
        next.delete('page');
      }),
  };
}
