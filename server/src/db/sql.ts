import type { Queryable } from './database.ts';

/**
 * What repositories that build SQL at run time share: numbered parameters,
 * WHERE clauses from a list of conditions, LIKE patterns, pages, and the
 * keyset walk downloads use. Values always travel as parameters; only
 * column names and fixed fragments are ever written into the text.
 */

/** Collects a statement's parameters; `param` appends one and returns its placeholder ($1, $2, ...). */
export class SqlParams {
  readonly values: unknown[];

  /** `values`: parameters already numbered, e.g. those of shared conditions. */
  constructor(values: readonly unknown[] = []) {
    this.values = [...values];
  }

  param = (value: unknown): string => {
    this.values.push(value);
    return `$${this.values.length}`;
  };
}

/** A placeholder-returning function, as SqlParams.param is; what condition builders take. */
export type Param = SqlParams['param'];

/** `WHERE a AND b ...`, or nothing when there are no conditions. */
export const whereAll = (conditions: readonly string[]): string => (conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '');

/**
 * `text` for use inside a LIKE pattern, matching itself literally: % and _
 * would otherwise be wildcards the user never typed. Backslash is LIKE's
 * default escape character, so it is escaped first.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Case-insensitive "starts with" on `column`, the form the lower(column)
 * text_pattern_ops indexes serve whatever the database collation.
 */
export function startsWith(column: string, text: string, param: Param): string {
  return `lower(${column}) LIKE lower(${param(`${escapeLike(text)}%`)})`;
}

/** How many hex characters a txid has (32 bytes, as the node prints it). */
const TXID_LENGTH = 64;

/**
 * Rows whose txid `column` starts with `prefix` (lower case, as txids are
 * stored): staff lists show txids shortened to their ends, so the start
 * they can read finds the row. A whole txid stays an equality, which the
 * unique and GIN indexes serve; a start is a LIKE, served by the
 * text_pattern_ops indexes of 027_txid_prefix_indexes.sql. `array`: the
 * column holds a package's txids, and any member may match.
 */
export function txidStartsWith(column: string, prefix: string, param: Param, { array = false } = {}): string {
  if (prefix.length === TXID_LENGTH) return array ? `${column} @> ARRAY[${param(prefix)}::text]` : `${column} = ${param(prefix)}`;
  const pattern = param(`${escapeLike(prefix)}%`);
  return array ? `EXISTS (SELECT 1 FROM unnest(${column}) AS member(txid) WHERE member.txid LIKE ${pattern})` : `${column} LIKE ${pattern}`;
}

/** Which rows of a list: LIMIT and OFFSET. */
export interface PageWindow {
  limit: number;
  offset: number;
}

/** One page of records and how many match over all pages. */
export interface Page<R> {
  records: R[];
  total: number;
}

/** Where a newest-first walk has got to: the (created_at, id) of the last row read. `at` as Postgres prints it, to the microsecond. */
export interface KeysetCursor {
  at: string;
  id: number;
}

/** Rows strictly after `cursor` in (created_at DESC, id DESC) order: one range of an index on (created_at, id). */
export function keysetAfter(cursor: KeysetCursor, param: Param): string {
  return `(created_at, id) < (${param(cursor.at)}::timestamptz, ${param(cursor.id)}::bigint)`;
}

/**
 * Every matching row, in batches of `batchSize`, each batch read when the
 * previous one has been taken. `statement` gives the SQL for the rows after a
 * cursor (none for the first batch), in the walk's order; `cursorOf` says
 * where a row leaves the walk. No connection or transaction is held between
 * batches: PGlite has one connection, which other requests need too.
 */
export async function* keysetBatches<R, C>(
  db: Queryable,
  batchSize: number,
  cursorOf: (row: R) => C,
  statement: (after: C | undefined, limit: number) => { sql: string; params: unknown[] },
): AsyncGenerator<R[]> {
  let after: C | undefined;
  for (;;) {
    const { sql, params } = statement(after, batchSize);
    const { rows } = await db.query<R>(sql, params);
    if (rows.length > 0) yield rows;
    if (rows.length < batchSize) return;
    after = cursorOf(rows[rows.length - 1]!);
  }
}
