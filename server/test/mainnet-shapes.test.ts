import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fillMainnetMempool, type MainnetMempool } from '../dev/bitcoin/mainnet-mempool.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The small version of `npm run bench -- mainnet-scale`, for correctness
 * only: a regtest mempool in mainnet shapes (dev/bitcoin/mainnet-mempool.ts:
 * a fee spike's spread of rates, chains, child-pays-for-parent pairs, large
 * transactions), big enough to fill more than one block. The node takes
 * every generated transaction; the engine mirrors exactly its mempool and
 * projects the same next block as its own getblocktemplate; after a block
 * is mined (the mempool churns), the same again.
 */

const TXS = 12_000;

let node: TestNode;
let db: TestDatabase;
let t: TestApp;
let filled: MainnetMempool;

before(async () => {
  node = await startTestNode({ extraArgs: ['-checkmempool=0', '-maxmempool=300'] });
  filled = await fillMainnetMempool(node.rpc, node.wallet, { txs: TXS, seed: 7, largeShare: 0.002 });
  db = await testDatabases()[0]!.open();
  t = await startTestApp(node, db);
});

after(async () => {
  await t?.close();
  await db?.close();
  await node?.stop();
});

async function sameAsNode(what: string): Promise<void> {
  const view = await t.mempool.view();
  const mempool = await node.rpc.call<string[]>('getrawmempool');
  assert.equal(view.mempool.txCount, mempool.length, `${what}: the mirror holds the node's mempool`);
  const template = (await node.rpc.call<{ transactions: Array<{ txid: string }> }>('getblocktemplate', [{ rules: ['segwit'] }])).transactions.map((x) => x.txid);
  const projected = view.nextBlockTxids();
  assert.ok(view.nextBlockFull, `${what}: more than a block's worth`);
  const missing = template.filter((txid) => !projected.includes(txid));
  const extra = projected.filter((txid) => !template.includes(txid));
  assert.deepEqual({ missing: missing.length, extra: extra.length }, { missing: 0, extra: 0 }, `${what}: the projected next block is the node's template`);
}

test('the node takes every generated transaction, in every shape', async () => {
  assert.equal(filled.sent, TXS);
  assert.ok(filled.chained > TXS / 4, `${filled.chained} spend an unconfirmed parent`);
  assert.ok(filled.cpfp > 50, `${filled.cpfp} child-pays-for-parent pairs`);
  assert.ok(filled.large > 3, `${filled.large} large transactions`);
  assert.equal((await node.rpc.call<{ size: number }>('getmempoolinfo')).size, TXS);
});

test('the engine mirrors it and projects the node\'s next block; after a block is mined, again', async () => {
  await sameAsNode('filled');
  const before = (await t.mempool.view()).mempool.txCount;
  await node.mine(1);
  const after = await t.mempool.view();
  assert.ok(after.mempool.txCount < before, 'the block took some');
  await sameAsNode('after a block');
});
