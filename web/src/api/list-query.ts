import { keepPreviousData, queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { useListState } from '../components/data-table/use-list-state.ts';
import type { PageSize } from '../components/data-table/page-sizes.ts';
import { dispositionFilename, saveFile, type DownloadedFile } from './download-file.ts';
import { staffApi, unwrap } from './http.ts';
import type { paths } from './schema';

/**
 * Every server-paged list of the dashboard goes through this one fetcher,
 * query and hook (docs/behaviour.md#staff-calls: list calls take page and limit); each
 * list is a declaration (api/lists.ts) of its path, the filters the address
 * holds and how they become the server's query, checked against schema.d.ts.
 */

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** The GET paths that answer `{result, total_records}` pages for page and limit. */
export type ListPath = {
  [P in keyof paths]: paths[P]['get'] extends {
    parameters: { query?: { page?: number; limit?: PageSize } };
    responses: { 200: infer R };
  }
    ? [Extract<Json<R>, { result: unknown[]; total_records: number }>] extends [never]
      ? never
      : P
    : never;
}[keyof paths];

type Get<P extends ListPath> = paths[P]['get'];
/** The list's whole query, page and limit included. */
export type ListQuery<P extends ListPath> = NonNullable<Get<P>['parameters']['query']>;
/** The list's filters as the server takes them. */
export type ListFilters<P extends ListPath> = Omit<ListQuery<P>, 'page' | 'limit' | 'download'>;
/** One page of the list. */
export type ListPage<P extends ListPath> = Extract<Json<Get<P>['responses'][200]>, { result: unknown[] }>;
export type ListRow<P extends ListPath> = ListPage<P>['result'][number];

export interface ListEndpoint<P extends ListPath, F extends string> {
  path: P;
  /** The filters as the address holds them, '' when unset. */
  filters: readonly F[];
  /** The server's query for the applied filters; blank values are left out. */
  query: (filters: Record<F, string>) => ListFilters<P>;
}

/** The names of a list's filters in the address. */
export type FilterName<L extends { filters: readonly string[] }> = L['filters'][number];

/** A list's declaration, its query checked against its own path. */
export const defineList = <P extends ListPath, const F extends string>(list: ListEndpoint<P, F>) => list;

/** What any change to a list's rows makes stale: every page and filter of it. */
export const listKey = (list: { path: ListPath }) => [list.path] as const;

/** Empty text means no filter: it is not sent. */
function withoutBlanks(query: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined && value !== ''));
}

/**
 * GET `path` with `query`. One generic call: openapi-fetch cannot check a
 * path that is a type parameter, so the check is on each list's declaration.
 */
function getList<P extends ListPath>(path: P, query: object, init: { signal?: AbortSignal; parseAs?: 'blob' } = {}) {
  const get = staffApi.GET as (path: ListPath, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  return get(path, { params: { query }, ...init });
}

export function fetchList<P extends ListPath, F extends string>(list: ListEndpoint<P, F>, page: number, limit: PageSize, filters: Record<F, string>, signal?: AbortSignal) {
  return unwrap(getList(list.path, { page, limit, ...withoutBlanks(list.query(filters)) }, { signal })) as Promise<ListPage<P>>;
}

export const listQuery = <P extends ListPath, F extends string>(list: ListEndpoint<P, F>, page: number, limit: PageSize, filters: Record<F, string>) =>
  queryOptions({
    // The key is the request itself: a list, then what it asks for.
    queryKey: [list.path, { page, limit, ...withoutBlanks(list.query(filters)) }],
    queryFn: ({ signal }) => fetchList(list, page, limit, filters, signal),
    // The previous page stays on screen while the next loads.
    placeholderData: keepPreviousData,
  });

/** A list as the dashboard shows it: its page, rows per page and filters from the address, and the page of rows for them. */
export function useList<P extends ListPath, F extends string>(list: ListEndpoint<P, F>) {
  const state = useListState(list.filters);
  const query = useQuery(listQuery(list, state.page, state.limit, state.filters));
  return { list: state, query };
}

/** Lists that also answer every matching row as a file (docs/behaviour.md#downloads). */
type DownloadPath = { [P in ListPath]: ListQuery<P> extends { download?: boolean } ? P : never }[ListPath];

/**
 * Every row matching the filters as the server's CSV, fetched with the
 * bearer token like every staff call (a plain link could not carry it);
 * `fallbackName` when the server names no file.
 */
export async function downloadList<P extends DownloadPath, F extends string>(list: ListEndpoint<P, F>, filters: Record<F, string>, fallbackName: string): Promise<DownloadedFile> {
  const call = getList(list.path, { ...withoutBlanks(list.query(filters)), download: true }, { parseAs: 'blob' });
  const blob = (await unwrap(call)) as Blob;
  const { response } = await call;
  return { blob, filename: dispositionFilename(response.headers.get('content-disposition')) ?? fallbackName };
}

/** The download as a mutation: its failures go where every dashboard failure goes (a 401 ends the session). */
export const useListDownload = <P extends DownloadPath, F extends string>(list: ListEndpoint<P, F>, fallbackName: string) =>
  useMutation({ mutationFn: (filters: Record<F, string>) => downloadList(list, filters, fallbackName), onSuccess: saveFile });
