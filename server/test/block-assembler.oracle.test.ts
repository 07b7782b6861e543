import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleBlocks, projectedBlockOf, type BlockProjection } from '@slipstream/mempool-engine/projection/block-assembler';
import { snapshotFromRawMempool, type MempoolSnapshot, type RawMempoolEntry } from '@slipstream/mempool-engine/mirror/mempool-snapshot';
import { parseConfig } from '../src/config/config.ts';
import type { PortalSettings } from '../src/modules/settings/settings.store.ts';
import { createPortalMempool } from '../src/runtime.ts';
import { quietLog } from './helpers/test-app.ts';
import { fillRandomMempool, type RandomMempool } from './helpers/random-mempool.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';

/**
 * Projected blocks against the oracle: the node's own block assembly.
 *
 * Regtest mempools of about 4,000 random transactions each (chains up to the
 * package limits, child-pays-for-parent packages, round fee rates that tie,
 * prioritised transactions, large ones that make the mempool span several
 * blocks, sigop-heavy ones that make the block sigop limit bind) are read
 * with `getrawmempool true` and projected; projected block 0 must be the
 * node's `getblocktemplate`: the same transactions in the same order with
 * the same fees. Then the node mines, and projected blocks 1 and 2 must be
 * its next templates: the projection of later blocks is the node's too.
 *
 * Exact equality, not a tolerance: the projection breaks ties as Core does
 * (by txid), so nothing is ambiguous. The launcher's -corepolicy=1 gives
 * Core's 4,000,000 WU block, without Knots' coin-age priority space.
 */

interface TemplateTx {
  txid: string;
  /** Base fee, satoshis. */
  fee: number;
  weight: number;
  sigops: number;
}

interface Template {
  height: number;
  transactions: TemplateTx[];
}

/** Three different mempools, one after the other on one node. */
const SEEDS = [20_260_521, 7, 1_234_567];

let node: TestNode;
let filled: RandomMempool;
let snapshot: MempoolSnapshot;
let txids: string[];
let projection: BlockProjection;
let projectMs: number;

before(async () => {
  // Regtest checks the whole mempool's consistency after every transaction by default: thousands of them would take minutes.
  node = await startTestNode({ extraArgs: ['-checkmempool=0'] });
});
after(async () => node?.stop());

/** A fresh random mempool on the node, read and projected. */
async function round(seed: number): Promise<void> {
  filled = await fillRandomMempool(node, { seed, payments: 4_000, large: 40, sigopHeavy: 30, prioritised: 40 });
  const raw = await node.rpc.call<Record<string, RawMempoolEntry>>('getrawmempool', [true]);
  txids = Object.keys(raw);
  snapshot = snapshotFromRawMempool(raw);
  const started = performance.now();
  projection = assembleBlocks(snapshot);
  projectMs = performance.now() - started;
}

const projectedTxids = (block: number): string[] => {
  const { orderStart, txCount } = projection.blocks[block]!;
  return [...projection.order.subarray(orderStart, orderStart + txCount)].map((i) => txids[i]!);
};

async function template(): Promise<{ template: Template; ms: number }> {
  const started = performance.now();
  const answer = await node.rpc.call<Template>('getblocktemplate', [{ rules: ['segwit'] }]);
  return { template: answer, ms: performance.now() - started };
}

function assertSameBlock(block: number, node: Template): void {
  const ours = projectedTxids(block);
  const theirs = node.transactions.map((t) => t.txid);
  const ourSet = new Set(ours);
  const theirSet = new Set(theirs);
  const missing = theirs.filter((txid) => !ourSet.has(txid));
  const extra = ours.filter((txid) => !theirSet.has(txid));
  assert.deepEqual({ missing: missing.length, extra: extra.length }, { missing: 0, extra: 0 }, `block ${block}: the same transactions (missing ${missing.slice(0, 3).join(', ')}; extra ${extra.slice(0, 3).join(', ')})`);
  assert.deepEqual(ours, theirs, `block ${block}: the same order`);
  const fees = node.transactions.reduce((a, t) => a + t.fee, 0);
  assert.equal(projection.blocks[block]!.fees, fees, `block ${block}: the same fees`);
  assert.equal(projection.blocks[block]!.weight, node.transactions.reduce((a, t) => a + t.weight, 0), `block ${block}: the same weight`);
}

for (const seed of SEEDS) {
  test(`mempool ${seed}: projected block 0 is the node's block template, same transactions, same order, same fees`, async (t) => {
    await round(seed);
    assert.equal(txids.length, filled.txids.length, 'the node took every transaction');
    const { template: next, ms } = await template();
    t.diagnostic(`${txids.length} transactions, ${filled.vsize.toLocaleString('en-US')} vB; built in ${filled.buildMs.toFixed(0)} ms, sent in ${filled.sendMs.toFixed(0)} ms`);
    t.diagnostic(`projected ${projection.blocks.length} blocks in ${projectMs.toFixed(1)} ms; getblocktemplate took ${ms.toFixed(1)} ms`);
    t.diagnostic(`block 0: ${next.transactions.length} transactions, ${projection.blocks[0]!.weight.toLocaleString('en-US')} WU, ${projection.blocks[0]!.fees.toLocaleString('en-US')} sats, functional rates ${projection.blocks[0]!.minFeeRate.toFixed(3)}–${projection.blocks[0]!.maxFeeRate.toFixed(3)} sat/vB`);

    // The mempool is contested: more than two blocks' worth, packages of several transactions, and some left out of block 0.
    assert.ok(filled.vsize * 4 > 2 * 4_000_000, `mempool of ${filled.vsize} vB`);
    assert.ok(projection.blocks.length >= 3);
    assert.ok(projection.packagesSelected < projection.projectedCount, 'some packages hold several transactions');
    assert.ok(projection.descendantsUpdated > 100, 'descendants were re-scored as their ancestors went in');
    assertSameBlock(0, next);

    // Sigops: where sigops set the vsize, the snapshot recovered the node's sigop cost exactly.
    const indexOf = new Map(txids.map((txid, i) => [txid, i]));
    for (const tx of next.transactions) {
      const sigops = snapshot.sigops[indexOf.get(tx.txid)!]!;
      if (sigops !== 0) assert.equal(sigops, tx.sigops, `sigop cost of ${tx.txid}`);
    }
    const blockSigops = next.transactions.reduce((a, tx) => a + tx.sigops, 0);
    const heavyLeftOut = txids.filter((_, i) => snapshot.sigops[i]! > 0 && projectedBlockOf(projection, i) !== 0).length;
    t.diagnostic(`block 0 sigop cost ${blockSigops} (limit 80,000 with the coinbase's 400); ${heavyLeftOut} sigop-priced transactions left for later blocks`);
    assert.ok(blockSigops + 400 + 5_440 >= 80_000 && heavyLeftOut > 0, 'the block sigop limit kept sigop-heavy transactions out');
  });

  test(`mempool ${seed}: after the node mines each block, projected blocks 1 and 2 are its next templates`, async () => {
    for (const block of [1, 2]) {
      await node.mine();
      const { template: next } = await template();
      assertSameBlock(block, next);
    }
    // Clear the mempool for the next one.
    while ((await node.rpc.call<{ size: number }>('getmempoolinfo')).size > 0) await node.mine();
  });
}

test('a node started with -blockmaxweight and -blockmintxfee: the projection given the same settings is its template', async (t) => {
  // A quarter of Core's block, and 5 sat/vB (0.00005 BTC/kvB) below which no package is mined.
  const settings = { maxBlockWeight: 1_000_000, blockMinFeeRatePerKvB: 5_000 };
  const own = await startTestNode({ extraArgs: ['-checkmempool=0', `-blockmaxweight=${settings.maxBlockWeight}`, '-blockmintxfee=0.00005'] });
  try {
    await fillRandomMempool(own, { seed: 424_242, payments: 1_500, large: 10, sigopHeavy: 5, prioritised: 20 });
    const raw = await own.rpc.call<Record<string, RawMempoolEntry>>('getrawmempool', [true]);
    const ids = Object.keys(raw);
    const ours = assembleBlocks(snapshotFromRawMempool(raw), settings);
    const { template: next } = await templateOf(own);
    const block = ours.blocks[0]!;
    t.diagnostic(`${ids.length} transactions; block 0: ${block.txCount} transactions, ${block.weight.toLocaleString('en-US')} WU; ${ours.blocks.length} projected blocks`);
    assert.deepEqual([...ours.order.subarray(0, block.txCount)].map((i) => ids[i]), next.transactions.map((tx) => tx.txid), 'the same transactions in the same order');
    assert.equal(block.fees, next.transactions.reduce((a, tx) => a + tx.fee, 0));
    assert.ok(block.weight <= settings.maxBlockWeight - 8_000, 'within the smaller block');
    assert.ok(ours.blocks.length >= 2, 'the smaller block leaves transactions for the next');
    // Packages under 5 sat/vB are in no block, as the node would never mine them.
    const unmined = ids.filter((_, i) => projectedBlockOf(ours, i) === -1);
    assert.ok(unmined.length > 0, 'some transactions pay less than the minimum');
    for (const txid of unmined) assert.ok(!next.transactions.some((tx) => tx.txid === txid), `${txid} is not in the template`);

    // The same through the portal's configuration: BLOCK_MAX_WEIGHT and BLOCK_MIN_TX_FEE reach the engine it runs.
    const { blockPolicy } = parseConfig({ BLOCK_MAX_WEIGHT: String(settings.maxBlockWeight), BLOCK_MIN_TX_FEE: String(settings.blockMinFeeRatePerKvB) }, { repoRoot: '.' });
    const poolSettings = { get: () => Promise.resolve({ poolCoinbaseTag: '', poolPayoutAddresses: [] } as unknown as PortalSettings) };
    const engine = createPortalMempool({ rpc: own.rpc, network: 'regtest', zmqUrl: undefined, settings: poolSettings, log: quietLog, blockPolicy });
    engine.start();
    try {
      assert.deepEqual((await engine.view()).nextBlockTxids(), next.transactions.map((tx) => tx.txid), "the configured engine's block 0 is the node's template");
    } finally {
      await engine.stop();
    }
  } finally {
    await own.stop();
  }
});

async function templateOf(node: TestNode): Promise<{ template: Template }> {
  return { template: await node.rpc.call<Template>('getblocktemplate', [{ rules: ['segwit'] }]) };
}
