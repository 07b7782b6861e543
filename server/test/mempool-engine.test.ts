import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { MempoolDashboardState } from '@slipstream/mempool-engine/queries/mempool-feed';
import { createMempoolEngine, type MempoolEngine } from '@slipstream/mempool-engine';
import { RpcTransportError } from '../src/bitcoin/rpc-client.ts';
import { poolRecogniser } from '../src/modules/settings/pool-identity.ts';
import { fillRandomMempool } from './helpers/random-mempool.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { nodeRpc, quietLog } from './helpers/test-app.ts';

/**
 * The engine end to end on a real node: ZMQ mirror, projection worker,
 * block tracker. Its projected block 0 is the node's own getblocktemplate
 * on a random mempool of chains, prioritisations and sigop-heavy
 * transactions (the assembler's oracle, now through the mirror); it follows
 * changes without being asked; and its feed carries what the /mempool/
 * dashboard shows.
 */

interface Template {
  height: number;
  transactions: Array<{ txid: string; fee: number; weight: number }>;
}

let node: TestNode;
const engines: MempoolEngine[] = [];

before(async () => {
  node = await startTestNode({ extraArgs: ['-checkmempool=0'] });
});
after(async () => {
  for (const engine of engines) await engine.stop();
  await node?.stop();
});

function engineFor(consistency: 'latest' | 'synced', identity = { coinbaseTag: '', payoutAddresses: [] as string[] }): MempoolEngine {
  const engine = createMempoolEngine({
    rpc: nodeRpc(node),
    network: 'regtest',
    zmqUrl: node.zmqSequenceUrl,
    log: quietLog,
    consistency,
    projectEveryMs: 100,
    poolRecogniser: async () => poolRecogniser({ ...identity, network: 'regtest' }),
    unavailableError: (message) => new RpcTransportError('mempool', 'unreachable', message),
  });
  engines.push(engine);
  engine.start();
  return engine;
}

async function until<T>(read: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('on a random mempool of several blocks, projected block 0 is the node\'s block template, and the rate to beat its lowest package', async (t) => {
  const engine = engineFor('synced');
  await fillRandomMempool(node, { seed: 2_026, payments: 2_500, large: 30, sigopHeavy: 25, prioritised: 30 });
  const view = await engine.view();
  const started = performance.now();
  const template = await node.rpc.call<Template>('getblocktemplate', [{ rules: ['segwit'] }]);
  t.diagnostic(`${view.mempool.txCount} transactions in ${view.blocks.length} projected blocks; getblocktemplate ${(performance.now() - started).toFixed(0)} ms; last projection ${engine.health().lastProjectionMs?.toFixed(1)} ms (assembler ${engine.health().lastAssembleMs?.toFixed(1)} ms), snapshot ${engine.health().lastSnapshotMs?.toFixed(2)} ms`);
  assert.ok(view.blocks.length >= 2);
  assert.deepEqual(view.nextBlockTxids(), template.transactions.map((tx) => tx.txid), 'same transactions, same order');
  assert.equal(view.blocks[0]!.totalFees, template.transactions.reduce((a, tx) => a + tx.fee, 0));
  assert.equal(view.blocks[0]!.weight, template.transactions.reduce((a, tx) => a + tx.weight, 0));
  assert.equal(view.nextBlockFull, true);
  const lowest = Math.min(...template.transactions.map((tx) => view.transaction(tx.txid)!.functionalRate!));
  assert.equal(view.marketRate, Math.max(lowest, view.minRelayRate));
  assert.equal(view.tip.height + 1, template.height);
  for (const tx of template.transactions.slice(0, 50)) assert.equal(view.transaction(tx.txid)?.position?.block, 0);
});

test('in latest mode the engine follows the node on its own, and its feed carries the dashboard\'s state', async () => {
  const engine = engineFor('latest');
  const states: MempoolDashboardState[] = [];
  engine.feed.subscribe((state) => states.push(state));
  const first = await engine.view();
  const tx = await node.buildTx({ feeRate: 50 });
  const sent = Date.now();
  await node.rpc.call('sendrawtransaction', [tx.hex]);
  // No sync asked for: ZMQ brings it, the engine re-projects.
  const seen = await until(() => {
    const found = states.at(-1);
    return found && found.mempool.txCount === first.mempool.txCount + 1 ? found : undefined;
  }, 'the new transaction in the feed');
  const latency = Date.now() - sent;
  assert.ok(latency < 3_000, `${latency} ms from sendrawtransaction to the feed`);
  const view = await engine.view();
  assert.equal(view.transaction(tx.txid)?.projected, true);

  const state = await until(() => (engine.feed.current()?.recentBlocks.length ? engine.feed.current()! : undefined), 'recent blocks in the feed');
  assert.equal(state.network, 'regtest');
  assert.ok(state.updatedAtMs >= seen.updatedAtMs && state.lagMs >= 0);
  assert.deepEqual(state.projectedBlocks, view.blocks);
  assert.equal(state.histogram.reduce((a, b) => a + b.txCount, 0), state.mempool.txCount, 'every transaction in one bucket');
  assert.equal(state.histogram.reduce((a, b) => a + b.vsize, 0), state.mempool.vsize);
  assert.deepEqual(state.histogram.map((b) => b.minRate), [...state.histogram.map((b) => b.minRate)].sort((a, b) => a - b));
  assert.equal(state.recentBlocks.length, 10);
  assert.equal(state.recentBlocks[0]!.height, view.tip.height);
  assert.equal(state.recentBlocks[0]!.hash, view.tip.hash);
  assert.ok(state.recentBlocks.every((b, i) => i === 0 || b.height === state.recentBlocks[i - 1]!.height - 1), 'newest first');
  assert.ok(state.recentBlocks.every((b) => b.ours), 'regtest with nothing configured: every block is the pool\'s');
  assert.deepEqual(state.poolShare, { last24h: 100, last7d: 100, expectedNextBlockSeconds: 600 });

  // A block: the feed shows it on top, and the mempool without what it took.
  const [hash] = await node.mine(1);
  const after = await until(() => (engine.feed.current()?.recentBlocks[0]?.hash === hash ? engine.feed.current()! : undefined), 'the new block in the feed');
  assert.equal(after.mempool.txCount, (await node.rpc.call<{ size: number }>('getmempoolinfo')).size);
  const health = engine.health();
  assert.equal(health.mode, 'zmq');
  assert.ok(health.projections >= 2);
});

test('a pool identified by a tag its node never wrote owns no block: shares 0, nothing marked', async () => {
  const engine = engineFor('latest', { coinbaseTag: '/SomeOtherPool/', payoutAddresses: [] });
  await engine.view();
  // In latest mode the odds are whatever the tracker has read so far: null until its window is complete.
  let odds = await engine.odds();
  const deadline = Date.now() + 10_000;
  while (odds.last24h === null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    odds = await engine.odds();
  }
  assert.deepEqual([odds.last24h, odds.last7d, odds.expectedNextBlockSeconds], [0, 0, null]);
  const state = await until(() => (engine.feed.current()?.recentBlocks.length ? engine.feed.current()! : undefined), 'the feed');
  assert.ok(state.recentBlocks.every((b) => !b.ours));
});
