import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { dayEnd, dayStart } from '../components/data-table/date-range.ts';
import { apiCall } from './http.ts';
import { listQueryString } from './list-query.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/client-code/view']['get'];
export type DiscountListResponse = Endpoint['responses'][200]['content']['application/json'];
export type DiscountRow = DiscountListResponse['result'][number];

/** The filters as the address holds them ('' when unset; dates as yyyy-MM-dd; status 'true', 'false' or '' for All). */
export const DISCOUNT_FILTERS = ['client_code', 'from_date', 'to_date', 'status'] as const;
export type DiscountFilters = Record<(typeof DISCOUNT_FILTERS)[number], string>;

export function fetchDiscountList(page: number, limit: number, filters: DiscountFilters, signal?: AbortSignal) {
  const query = listQueryString(page, limit, {
    ...filters,
    from_date: dayStart(filters.from_date),
    to_date: dayEnd(filters.to_date),
  });
  return apiCall<DiscountListResponse>(`/rest-api/client-code/view?${query}`, { staff: true, signal });
}

/** Every discount list, whatever its page and filters: what a change to a code makes stale. */
export const DISCOUNT_LIST_KEY = ['client-code', 'view'] as const;

export const discountListQuery = (page: number, limit: number, filters: DiscountFilters) =>
  queryOptions({
    queryKey: [...DISCOUNT_LIST_KEY, page, limit, filters],
    queryFn: ({ signal }) => fetchDiscountList(page, limit, filters, signal),
    placeholderData: keepPreviousData,
  });

export const useDiscountList = (page: number, limit: number, filters: DiscountFilters) => useQuery(discountListQuery(page, limit, filters));
