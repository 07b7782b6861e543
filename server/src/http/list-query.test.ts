import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from './errors.ts';
import { escapeLike } from '../db/sql.ts';
import { filterText, formatDateTime, pageWindow, parseDateRange, parseFilterDateTime, totalPages } from './list-query.ts';

test('filter dates are read as UTC, in both spellings the dashboard sends', () => {
  assert.equal(parseFilterDateTime('2025-01-31 00:00:00')?.toISOString(), '2025-01-31T00:00:00.000Z');
  assert.equal(parseFilterDateTime('2025-01-31 23:59:59')?.toISOString(), '2025-01-31T23:59:59.000Z');
  assert.equal(parseFilterDateTime('2025-01-31 23: 59: 59')?.toISOString(), '2025-01-31T23:59:59.000Z');
  assert.equal(parseFilterDateTime('2024-02-29 12:00:00')?.toISOString(), '2024-02-29T12:00:00.000Z');
});

test('text that is not a real date and time is refused, not rolled over', () => {
  for (const text of ['2025-02-29 00:00:00', '2025-13-01 00:00:00', '2025-04-31 00:00:00', '2025-01-01 24:00:00', '2025-01-01 00:60:00',
    '2025-01-01', '2025-01-01T00:00:00Z', '2025-1-1 00:00:00', '2025-01-01  00:00:00', 'yesterday', '']) {
    assert.equal(parseFilterDateTime(text), undefined, text);
  }
});

test('to_date includes its whole second; an inverted range and bad text are 400s that name the field', () => {
  const range = parseDateRange({ from_date: '2025-01-01 00:00:00', to_date: '2025-01-31 23: 59: 59' });
  assert.equal(range.from?.toISOString(), '2025-01-01T00:00:00.000Z');
  assert.equal(range.toExclusive?.toISOString(), '2025-02-01T00:00:00.000Z');
  assert.deepEqual(parseDateRange({ from_date: ' ', to_date: undefined }), {});
  assert.throws(() => parseDateRange({ from_date: '2025-01-02 00:00:00', to_date: '2025-01-01 23:59:59' }), (e: ApiError) => e.statusCode === 400 && /earlier/.test(e.message));
  assert.throws(() => parseDateRange({ to_date: '31/01/2025' }), (e: ApiError) => e.statusCode === 400 && /^to_date must be/.test(e.message));
});

test('pages: offset from page and limit, total pages rounded up, none when nothing matches', () => {
  assert.deepEqual(pageWindow({}), { limit: 10, offset: 0 });
  assert.deepEqual(pageWindow({ page: 3, limit: 20 }), { limit: 20, offset: 40 });
  assert.equal(totalPages(0, 10), 0);
  assert.equal(totalPages(10, 10), 1);
  assert.equal(totalPages(11, 10), 2);
});

test('text filters: blank means none; LIKE wildcards match themselves', () => {
  assert.equal(filterText('  '), undefined);
  assert.equal(filterText(' ab '), 'ab');
  assert.equal(escapeLike('50%_off\\'), '50\\%\\_off\\\\');
});

test('formatDateTime writes what parseFilterDateTime reads, in UTC, without fractions of a second', () => {
  assert.equal(formatDateTime(new Date('2025-12-31T23:59:59.999Z')), '2025-12-31 23:59:59');
  assert.equal(formatDateTime(new Date('2025-01-02T03:04:05Z')), '2025-01-02 03:04:05');
  for (const text of ['2024-02-29 12:00:00', '1999-12-31 23:59:59', '2100-01-01 00:00:00']) {
    assert.equal(formatDateTime(parseFilterDateTime(text)!), text);
  }
});
