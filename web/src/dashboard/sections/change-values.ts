import { activeLabel, dateOnly, percent, titleCase } from './labels.ts';

/**
 * The Change cells of the Discount and Client Logs (docs/behaviour.md#logs): each
 * field that changed as 'Field Name: previous -> updated', field names
 * title-cased, dates as dates (with their times when only the time changed),
 * the discount as a percent. A side that has no value (before a create, after
 * a delete, a blank field) reads 'None'.
 */

type Values = Record<string, unknown>;

function parse(json: string | null): Values | null | 'unreadable' {
  if (json === null || json === '') return null;
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Values) : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:/;

export function formatChangeValue(field: string, value: unknown): string {
  if (value === null || value === undefined || value === '') return 'None';
  if (field === 'discount_percentage' && (typeof value === 'number' || typeof value === 'string')) return percent(value);
  if (field === 'status' && typeof value === 'boolean') return activeLabel(value);
  if (typeof value === 'string') return DATE_TIME.test(value) ? dateOnly(value) : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** One line per changed field; the raw text when a side is not a JSON object. */
export function changeLines(previousJson: string | null, updatedJson: string | null): string[] {
  const previous = parse(previousJson);
  const updated = parse(updatedJson);
  if (previous === 'unreadable' || updated === 'unreadable') {
    return [`${previousJson ?? 'None'} -> ${updatedJson ?? 'None'}`];
  }
  const fields = [...new Set([...Object.keys(updated ?? {}), ...Object.keys(previous ?? {})])];
  const lines: string[] = [];
  for (const field of fields) {
    const [was, is] = [previous?.[field], updated?.[field]];
    if (JSON.stringify(was ?? null) === JSON.stringify(is ?? null)) continue;
    let before = formatChangeValue(field, was);
    let after = formatChangeValue(field, is);
    // Only the time of day changed: the dates alone would read as no change.
    if (before === after) [before, after] = [String(was), String(is)];
    lines.push(`${titleCase(field)}: ${before} -> ${after}`);
  }
  return lines;
}
