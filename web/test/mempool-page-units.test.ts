import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ago,
  approxDuration,
  axisVbytes,
  bucketRange,
  displayBuckets,
  feeColour,
  fees,
  fill,
  fillText,
  niceTicks,
  rate,
  vsize,
} from '../src/mempool-page/mempool-format.ts';
import { clockOffsetFrom, isNewer } from '../src/mempool-page/live-rules.ts';
import type { MempoolDashboardState } from '../src/mempool-page/mempool-state.ts';
import { createSseParser } from '../src/mempool-page/sse-parser.ts';
import { toWire } from '../../server/src/modules/mempool-dashboard/state-stream.ts';

/** The /mempool/ page's rules that need no browser. */

describe('the histogram buckets', () => {
  test('fine engine buckets merge into the display bounds; empty ends are dropped', () => {
    const fine = [0.1, 0.5, 0.9, 1, 1.2, 1.7, 2.4, 7, 9.9, 11, 600].map((minRate) => ({ minRate, txCount: 1, vsize: 100 }));
    const empty = [{ minRate: 3000, txCount: 0, vsize: 0 }];
    const buckets = displayBuckets([...fine, ...empty], [0, 1, 2, 5, 10, 20, 100, 1000, 5000]);
    assert.deepEqual(
      buckets.map((b) => [b.from, b.to, b.txCount, b.vsize]),
      [
        [0, 1, 3, 300],
        [1, 2, 3, 300],
        [2, 5, 1, 100],
        [5, 10, 2, 200],
        [10, 100, 1, 100],
        [100, null, 1, 100],
      ],
    );
  });

  test('a coarse engine bucket is never split into a bar and empty neighbours', () => {
    const coarse = [{ minRate: 1, txCount: 10, vsize: 1000 }, { minRate: 10, txCount: 5, vsize: 500 }];
    const buckets = displayBuckets(coarse, [0, 1, 2, 3, 5, 10, 20]);
    assert.deepEqual(buckets, [
      { from: 1, to: 10, txCount: 10, vsize: 1000 },
      { from: 10, to: null, txCount: 5, vsize: 500 },
    ]);
    assert.equal(bucketRange(buckets[0]!), '1–10');
    assert.equal(bucketRange(buckets[1]!), '10+');
  });

  test('no transactions, no buckets', () => {
    assert.deepEqual(displayBuckets([]), []);
    assert.deepEqual(displayBuckets([{ minRate: 1, txCount: 0, vsize: 0 }]), []);
  });

  test('axis ticks are round and reach the top', () => {
    assert.deepEqual(niceTicks(450_000), [0, 200_000, 400_000, 600_000]);
    assert.deepEqual(niceTicks(1_300), [0, 500, 1_000, 1_500]);
    assert.deepEqual(niceTicks(0), [0]);
    assert.equal(axisVbytes(1_500_000), '1.5M');
    assert.equal(axisVbytes(250_000), '250k');
    assert.equal(axisVbytes(500), '500');
  });
});

describe('numbers on the blocks', () => {
  test('rates keep the precision that matters', () => {
    assert.equal(rate(0.123), '0.12');
    assert.equal(rate(3.14), '3.1');
    assert.equal(rate(42.6), '43');
    assert.equal(rate(1234), '1,234');
  });
  test('fees in sats when small, else BTC to 3 decimals', () => {
    assert.equal(fees(9_200), '9,200 sats');
    assert.equal(fees(102_000_000), '1.020 BTC');
    assert.equal(fees(4_199_999), '0.042 BTC');
    assert.equal(fees(2_100_000_000_000_000), '21,000,000.000 BTC');
  });
  test('sizes', () => {
    assert.equal(vsize(999), '999 vB');
    assert.equal(vsize(2_840), '3 kvB');
    assert.equal(vsize(19_720_000), '19.72 MvB');
  });
  test('fill is weight over 4,000,000, and a block with room is never called 100% full', () => {
    assert.equal(fill({ weight: 2_000_000 }), 0.5);
    assert.equal(fill({ weight: 4_100_000 }), 1);
    assert.equal(fillText(0), '0% full');
    assert.equal(fillText(11_360 / 4_000_000), '< 1% full');
    assert.equal(fillText(0.5), '50% full');
    assert.equal(fillText(3_999_000 / 4_000_000), '99.9% full');
    assert.equal(fillText(1), '100% full');
  });
  test('fee colours run from cheap to dear', () => {
    assert.equal(feeColour(0.5), feeColour(1));
    assert.notEqual(feeColour(1), feeColour(600));
  });
  test('durations', () => {
    assert.equal(approxDuration(45), '~45 s');
    assert.equal(approxDuration(600), '~10 min');
    assert.equal(approxDuration(4_800), '~1 h 20 min');
    assert.equal(approxDuration(7_200), '~2 h');
    assert.equal(approxDuration(3 * 86_400 + 4 * 3_600), '~3 d 4 h');
    assert.equal(ago(5), '5 s ago');
    assert.equal(ago(-3), '0 s ago');
    assert.equal(ago(840), '14 min ago');
  });
});

describe('the live feed', () => {
  const at = (updatedAtMs: number) => ({ updatedAtMs }) as MempoolDashboardState;
  test('states only move forward: a late /state answer never replaces a newer streamed one', () => {
    assert.equal(isNewer(at(2), null), true);
    assert.equal(isNewer(at(2), at(1)), true);
    assert.equal(isNewer(at(2), at(2)), true);
    assert.equal(isNewer(at(1), at(2)), false);
  });
  test('the server clock offset comes from the Date header, ignoring its own rounding', () => {
    const now = Date.parse('2025-03-01T12:00:00.300Z');
    assert.equal(clockOffsetFrom('Sat, 01 Mar 2025 12:00:00 GMT', now), 0);
    assert.equal(clockOffsetFrom('Sat, 01 Mar 2025 12:00:30 GMT', now), 30_200);
    assert.equal(clockOffsetFrom('Sat, 01 Mar 2025 11:59:00 GMT', now), -59_800);
    assert.equal(clockOffsetFrom(null, now), 0);
    assert.equal(clockOffsetFrom('not a date', now), 0);
  });
});

describe('the event stream parser (the stream is read with fetch, to send the staff token as a header)', () => {
  const parse = (chunks: string[]) => {
    const got: Array<[string, string] | ['retry', number]> = [];
    const parser = createSseParser({ event: (type, data) => got.push([type, data]), retry: (ms) => got.push(['retry', ms]) });
    for (const chunk of chunks) parser.push(chunk);
    return got;
  };

  test('what the server writes, cut at every point, gives the same events', () => {
    const state = toWire({ network: 'regtest', updatedAtMs: 1, lagMs: 0, mempool: { txCount: 2, vsize: 300, totalFees: 900 }, projectedBlocks: [], histogram: [], recentBlocks: [], poolShare: { last24h: null, last7d: null, expectedNextBlockSeconds: null } });
    // The stream's opening, a heartbeat and a state, as state-stream.ts frames them.
    const wire = `retry: 1234\n: connected\n\n: heartbeat\n\nevent: state\ndata: ${JSON.stringify(state)}\n\n`;
    const expected = [['retry', 1234], ['state', JSON.stringify(state)]];
    assert.deepEqual(parse([wire]), expected);
    for (let cut = 1; cut < wire.length; cut++) assert.deepEqual(parse([wire.slice(0, cut), wire.slice(cut)]), expected, `cut at ${cut}`);
    assert.deepEqual(parse([...wire]), expected, 'a character at a time');
    assert.deepEqual(JSON.parse((parse([wire])[1] as [string, string])[1]), state);
  });

  test('CRLF, CR and LF line ends; data lines joined; comments, unknown fields and events without data ignored', () => {
    assert.deepEqual(parse(['data: a\r\ndata: b\r\n\r\n']), [['message', 'a\nb']]);
    assert.deepEqual(parse(['event: state\rdata:x\r\r']), [['state', 'x']]);
    assert.deepEqual(parse(['data: one\r', '\n\r', '\n']), [['message', 'one']], 'a CRLF cut between chunks is one line end');
    assert.deepEqual(parse([': just a comment\n\nevent: state\n\nid: 7\nfoo: bar\ndata\n\n']), [['message', '']]);
    assert.deepEqual(parse(['data:  two spaces\n\n']), [['message', ' two spaces']], 'one space after the colon is dropped, no more');
    assert.deepEqual(parse(['retry: soon\nretry: 250\n\n']), [['retry', 250]]);
    assert.deepEqual(parse(['data: no blank line yet\n']), [], 'an event is dispatched by its blank line only');
  });
});
