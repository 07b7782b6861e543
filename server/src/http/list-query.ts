import { Type, type TSchema } from 'typebox';
import { ApiError } from './errors.ts';

/**
 * The pieces every staff list shares (docs/behaviour.md#staff-calls, docs/behaviour.md#tables-filters-and-dates): page and
 * limit, the { result, total_pages, total_records } wrapper, and the from/to
 * date filters the dashboard sends as text.
 */

/** docs/behaviour.md#limits-and-constants: page sizes 10, 20, 50, 100; default 10, default page 1. */
export const PAGE_SIZES = [10, 20, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const DEFAULT_PAGE_SIZE: PageSize = 10;

/**
 * Bounded so that (page - 1) * limit stays a safe integer that Postgres takes
 * as a bigint OFFSET: ajv accepts 1e30 as an "integer", which would otherwise
 * reach the database as '1e+32' and fail there with a 500.
 */
const MAX_PAGE = 2 ** 31 - 1;

/** Spread into a list's querystring object. */
export const PageQueryProperties = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page number, from 1' })),
  // An integer enum rather than a union of literals: ajv coerces the query text by `type`.
  limit: Type.Optional(
    Type.Unsafe<PageSize>(Type.Integer({ enum: [...PAGE_SIZES], default: DEFAULT_PAGE_SIZE, description: `Rows per page: ${PAGE_SIZES.join(', ')}` })),
  ),
};

const DATE_TIME_FORMAT = "'yyyy-MM-dd HH:mm:ss'";

/** Spread into a list's querystring object. Parse the values with parseDateRange. */
export const DateRangeQueryProperties = {
  from_date: Type.Optional(
    Type.String({
      maxLength: 32,
      description: `Earliest time included, ${DATE_TIME_FORMAT} in UTC, e.g. '2025-01-31 00:00:00'`,
    }),
  ),
  to_date: Type.Optional(
    Type.String({
      maxLength: 32,
      description:
        `Latest time included (the whole second), ${DATE_TIME_FORMAT} in UTC, e.g. '2025-01-31 23:59:59'. ` +
        "'2025-01-31 23: 59: 59' (a space after each colon, as the dashboard sends some end dates) is read the same.",
    }),
  ),
};

/** The list response wrapper of docs/behaviour.md#data-shapes around one row schema. */
export function ListResponse<Row extends TSchema>(row: Row) {
  return Type.Object({
    result: Type.Array(row),
    total_pages: Type.Integer({ minimum: 0, description: 'ceil(total_records / limit); 0 when nothing matches' }),
    total_records: Type.Integer({ minimum: 0, description: 'Rows matching the filters, over all pages' }),
  });
}

export interface PageRequest {
  page?: number | undefined;
  limit?: number | undefined;
}

/** LIMIT and OFFSET for a page request; the schema defaults fill page and limit, this repeats them for direct callers. */
export function pageWindow(request: PageRequest): { limit: number; offset: number } {
  const limit = request.limit ?? DEFAULT_PAGE_SIZE;
  const page = request.page ?? 1;
  return { limit, offset: (page - 1) * limit };
}

export function totalPages(totalRecords: number, limit: number): number {
  return Math.ceil(totalRecords / limit);
}

// The seconds may follow ': ' as well as ':' because the dashboard sends
// end dates as 'date 23: 59: 59' (docs/behaviour.md#dates-in-calls).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}): ?(\d{2}): ?(\d{2})$/;

/**
 * A filter date as an instant. The text carries no zone and is read as UTC,
 * the zone every database session runs in (db/database.ts). Returns undefined
 * for text that is not a real date and time (month 13, 31 February, 24:00:00).
 */
export function parseFilterDateTime(text: string): Date | undefined {
  const match = DATE_TIME.exec(text.trim());
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC rolls 31 February over into March; a date that moved was not a real one.
  const roundTrips =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return roundTrips ? date : undefined;
}

/** The inverse of parseFilterDateTime: 'yyyy-MM-dd HH:mm:ss' in UTC, fractions of a second dropped. */
export function formatDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

export interface DateRange {
  /** Inclusive: rows at or after it. */
  from?: Date;
  /** Exclusive: one second after to_date, so that a row at 23:59:59.750 is still inside '23:59:59'. */
  toExclusive?: Date;
}

/** Parses from_date and to_date, refusing bad text and an inverted range with a 400 the user can act on. */
export function parseDateRange(query: { from_date?: string | undefined; to_date?: string | undefined }): DateRange {
  const range: DateRange = {};
  const parse = (field: 'from_date' | 'to_date'): Date | undefined => {
    const text = query[field];
    if (text === undefined || text.trim() === '') return undefined;
    const date = parseFilterDateTime(text);
    if (!date) throw new ApiError(400, `${field} must be a date and time ${DATE_TIME_FORMAT} (UTC), e.g. '2025-01-31 23:59:59'; got '${text}'.`);
    return date;
  };
  const from = parse('from_date');
  const to = parse('to_date');
  if (from && to && from > to) throw new ApiError(400, 'to_date cannot be earlier than from_date.');
  if (from) range.from = from;
  if (to) range.toExclusive = new Date(to.getTime() + 1000);
  return range;
}

/** A text filter as the user meant it: surrounding blanks dropped, and blank meaning "no filter". */
export function filterText(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
