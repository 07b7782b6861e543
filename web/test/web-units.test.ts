import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dateRangeProblem, dayEnd, dayStart, isValidDate, DATE_INPUT_NOT_VALID } from '../src/components/data-table/date-range.ts';
import { pageCount, rangeLabel, serialNumber } from '../src/components/data-table/page-sizes.ts';
import { feeRateUp, formatEastern, odds, shortTxid } from '../src/lib/format.ts';
import { explorerAddressUrl, explorerTxUrl } from '../src/public/explorer.ts';
import { splitHexInput } from '../src/public/hex-input.ts';
import { freshness } from '../src/public/use-seconds-since.ts';

/** The web app's rules that need no browser: docs/behaviour.md#tables-filters-and-dates, docs/behaviour.md#validation-rules and docs/behaviour.md#limits-and-constants. */

const TXID = 'a'.repeat(10) + 'b'.repeat(44) + 'c'.repeat(10);

describe('the hex input (docs/behaviour.md#submit-page)', () => {
  test('trimmed; one transaction without a comma', () => {
    assert.deepEqual(splitHexInput('  0200ab \n'), { items: ['0200ab'], isPackage: false });
    assert.deepEqual(splitHexInput('   '), { items: [], isPackage: false });
  });
  test('a comma means a package; items trimmed and empty ones dropped', () => {
    assert.deepEqual(splitHexInput(' aa , bb,, ,cc, '), { items: ['aa', 'bb', 'cc'], isPackage: true });
    assert.deepEqual(splitHexInput('aa,'), { items: ['aa'], isPackage: true });
  });
  test('whitespace inside one transaction (wrapped lines, tabs, CR/LF) is removed; commas still separate members', () => {
    assert.deepEqual(splitHexInput('0200\r\n ab\tcd\n ef'), { items: ['0200abcdef'], isPackage: false });
    assert.deepEqual(splitHexInput('aa\nbb ,\r\ncc dd'), { items: ['aabb', 'ccdd'], isPackage: true });
  });
});

describe('numbers and times on the public pages', () => {
  test('the minimum fee rate is rounded up to 2 decimals', () => {
    assert.equal(feeRateUp(1.001), '1.01');
    assert.equal(feeRateUp(2), '2.00');
    assert.equal(feeRateUp(1.1), '1.10');
    assert.equal(feeRateUp(3.14159), '3.15');
  });
  test('odds above 90 show as >90%', () => {
    assert.equal(odds(100), '>90%');
    assert.equal(odds(90.5), '>90%');
    assert.equal(odds(90), '90%');
    assert.equal(odds(12.4), '12%');
    assert.equal(odds(null), 'N/A');
  });
  test('long txids keep their first and last 10 characters', () => {
    assert.equal(shortTxid(TXID), 'aaaaaaaaaa...cccccccccc');
    assert.equal(shortTxid('abc'), 'abc');
  });
  test('times are Eastern US time, daylight saving included', () => {
    assert.equal(formatEastern(Date.UTC(2025, 0, 15, 12, 0, 0) / 1000), '2025-01-15 07:00:00 EST');
    assert.equal(formatEastern(Date.UTC(2025, 6, 15, 12, 0, 0) / 1000), '2025-07-15 08:00:00 EDT');
  });
  test('the last-update colour: green under 29 s, orange under 59 s, red after', () => {
    assert.equal(freshness(0), 'fresh');
    assert.equal(freshness(28), 'fresh');
    assert.equal(freshness(29), 'ageing');
    assert.equal(freshness(58), 'ageing');
    assert.equal(freshness(59), 'stale');
  });
});

describe('block-explorer links per network', () => {
  test('mainnet, testnet and testnet4 each have their own; regtest has none', () => {
    assert.equal(explorerTxUrl('mainnet', TXID), `https://mempool.space/tx/${TXID}`);
    assert.equal(explorerTxUrl('testnet', TXID), `https://mempool.space/testnet/tx/${TXID}`);
    assert.equal(explorerTxUrl('testnet4', TXID), `https://mempool.space/testnet4/tx/${TXID}`);
    assert.equal(explorerTxUrl('regtest', TXID), null);
    assert.equal(explorerAddressUrl('testnet4', 'tb1qx'), 'https://mempool.space/testnet4/address/tb1qx');
  });
});

describe('the shared table (docs/behaviour.md#tables-filters-and-dates)', () => {
  test("the 'from - to of total' label and page count", () => {
    assert.equal(rangeLabel(1, 10, 25), '1 - 10 of 25');
    assert.equal(rangeLabel(3, 10, 25), '21 - 25 of 25');
    assert.equal(rangeLabel(1, 10, 0), '0 - 0 of 0');
    assert.equal(pageCount(10, 25), 3);
    assert.equal(pageCount(10, 0), 1);
    assert.equal(serialNumber(2, 20, 0), 21);
  });
  test('dates: yyyy-MM-dd within 1900-2100, To not before From', () => {
    assert.equal(isValidDate('2025-02-28'), true);
    assert.equal(isValidDate('2025-02-30'), false);
    assert.equal(isValidDate('1899-12-31'), false);
    assert.equal(isValidDate('2101-01-01'), false);
    assert.equal(dateRangeProblem('2025-03-10', '2025-03-05'), DATE_INPUT_NOT_VALID);
    assert.equal(dateRangeProblem('2025-03-05', '2025-03-05'), null);
    assert.equal(dateRangeProblem('', '2025-03-05'), null);
    assert.equal(dateRangeProblem('2025-13-01', ''), DATE_INPUT_NOT_VALID);
  });
  test('start dates go at 00:00:00 and end dates at 23:59:59', () => {
    assert.equal(dayStart('2025-03-05'), '2025-03-05 00:00:00');
    assert.equal(dayEnd('2025-03-05'), '2025-03-05 23:59:59');
    assert.equal(dayStart(''), undefined);
  });
});
