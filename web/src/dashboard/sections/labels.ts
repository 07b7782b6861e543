/** How the back-office screens write values (docs/behaviour.md#dashboard). */

/** 'fee_rate_floor' becomes 'Fee Rate Floor' (docs/behaviour.md#settings: snake_case names shown title-cased). */
export function titleCase(snake: string): string {
  return snake
    .split('_')
    .filter((word) => word !== '')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/** 'yyyy-MM-dd HH:mm:ss' (the discount form's text, in UTC) shown as its date. */
export function dateOnly(text: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : text;
}

/**
 * An ISO instant's date in UTC: the zone the list's From/To dates are read
 * in, so the date shown is the one the filter matches.
 */
export function utcDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? 'N/A' : date.toISOString().slice(0, 10);
}

export const percent = (value: number | string) => `${value}%`;

export const activeLabel = (status: boolean) => (status ? 'Active' : 'Inactive');

/** Today's date in UTC (yyyy-MM-dd): the discount dates are UTC. */
export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}
