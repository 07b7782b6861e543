import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MempoolView } from '@slipstream/mempool-engine';
import { createEngineMarketSource } from './market-rate.ts';

test('the market snapshot is the engine view’s rate, relay minimum, fullness and next height', async () => {
  const view = { marketRate: 12.5, minRelayRate: 1, nextBlockFull: true, tip: { hash: 'ab'.repeat(32), height: 840_000 }, updatedAtMs: 1_700_000_000_000 } as MempoolView;
  const market = createEngineMarketSource({ view: async () => view });
  assert.deepEqual(await market.snapshot(), { marketRate: 12.5, minRelayRate: 1, nextBlockFull: true, height: 840_001, takenAt: 1_700_000_000_000 });
});

test('an engine that cannot answer fails the snapshot with its error', async () => {
  const market = createEngineMarketSource({ view: () => Promise.reject(new Error('node down')) });
  await assert.rejects(market.snapshot(), /node down/);
});
