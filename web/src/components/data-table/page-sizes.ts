/** docs/behaviour.md#limits-and-constants: rows per page, default 10, first page 1. */
export const PAGE_SIZES = [10, 20, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const DEFAULT_PAGE_SIZE: PageSize = 10;

export function isPageSize(value: number): value is PageSize {
  return (PAGE_SIZES as readonly number[]).includes(value);
}

/** The 'from - to of total' label of docs/behaviour.md#tables-filters-and-dates. */
export function rangeLabel(page: number, limit: number, total: number): string {
  if (total === 0) return '0 - 0 of 0';
  const from = (page - 1) * limit + 1;
  const to = Math.min(page * limit, total);
  return `${from} - ${to} of ${total}`;
}

export function pageCount(limit: number, total: number): number {
  return Math.max(1, Math.ceil(total / limit));
}

/** The Sno column: numbering continues across pages. */
export function serialNumber(page: number, limit: number, index: number): number {
  return (page - 1) * limit + index + 1;
}
