import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { etaText } from '../src/public/status-live/eta.ts';

/** The status page's ETA: the blocks the pool must mine before the transaction, at its block share. */
describe('etaText', () => {
  test('blocks from the projected position, hours at the pool\'s expected block interval', () => {
    assert.equal(etaText(0, 3600), "Likely within 1 block, about 1.0 hour at the pool's share.");
    assert.equal(etaText(2, 1800), "Likely within 3 blocks, about 1.5 hours at the pool's share.");
    assert.equal(etaText(5, 7200), "Likely within 6 blocks, about 12 hours at the pool's share.");
  });

  test('no time when the pool mined none of the recent blocks; nothing when in no projected block', () => {
    assert.equal(etaText(1, null), "Likely within 2 blocks; the pool's block share is unknown, so no time can be given.");
    assert.equal(etaText(null, 600), null);
  });
});
