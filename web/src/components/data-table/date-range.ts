/** docs/behaviour.md#tables-filters-and-dates: dates are yyyy-MM-dd, years 1900-2100, and To cannot precede From. */
export const DATE_INPUT_NOT_VALID = 'Date input not valid.';
export const MIN_DATE = '1900-01-01';
export const MAX_DATE = '2100-12-31';

/** A picked date and time of day (components/date-time-field.tsx). */
export interface DateTimeValue {
  /** yyyy-MM-dd, or '' when not chosen. */
  date: string;
  /** HH:mm, or '' for the whole day (the start of it for a from-time, the end for an until-time). */
  time: string;
}

export function isValidDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  // Date rolls 2025-02-30 over into March; a real date survives the round trip.
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && text >= MIN_DATE && text <= MAX_DATE;
}

/** The message for a From/To pair, or null when it may be searched. Empty ends are open. */
export function dateRangeProblem(from: string, to: string): string | null {
  if ((from !== '' && !isValidDate(from)) || (to !== '' && !isValidDate(to))) return DATE_INPUT_NOT_VALID;
  if (from !== '' && to !== '' && to < from) return DATE_INPUT_NOT_VALID;
  return null;
}

/** docs/behaviour.md#dates-in-calls: start dates go to the server at 00:00:00, end dates at 23:59:59. */
export function dayStart(date: string): string | undefined {
  return date === '' ? undefined : `${date} 00:00:00`;
}

export function dayEnd(date: string): string | undefined {
  return date === '' ? undefined : `${date} 23:59:59`;
}
