import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { MAX_BLOCK_WEIGHT } from '../src/bitcoin/tx-codec.ts';
import { startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The market rate against the oracle: the node's own block assembly
 * (getblocktemplate, selecting by ancestor-package score) over a mempool
 * that overfills a block and holds a child-pays-for-parent pair. The rate
 * comes from the mempool engine, as every request gets it: the engine's
 * mirror of the node's mempool (ZMQ), its projected block 0, and the lowest
 * functional rate in it.
 *
 * The launcher's `-corepolicy=1` gives Core's 4,000,000 WU block (Knots' own
 * default is 1,200,000), which the engine's fullness rule assumes; no
 * -blockmaxweight here.
 */

interface Template {
  height: number;
  transactions: Array<{ txid: string; fee: number; weight: number; sigops: number; depends: number[] }>;
}

interface MempoolInfo {
  size: number;
  minrelaytxfee: number;
  mempoolminfee: number;
}

/** The getmempoolentry fields used here (getrawmempool verbose gives the same entry for every txid). */
interface MempoolEntry {
  vsize: number;
  ancestorsize: number;
  fees: { base: number; ancestor: number };
  spentby: string[];
}

/** Bitcoin Core's -blockreservedweight default: the weight a template leaves for the coinbase. */
const RESERVED_WEIGHT = 8_000;
/** One 1,000-sat P2WSH output of buildOversize: 8 value + 1 length + 34 script bytes, no witness. */
const OVERSIZE_OUTPUT_WEIGHT = 43 * 4;
const BIG_OUTPUTS = 3_600;

let node: TestNode;
let db: TestDatabase;
let portal: TestApp;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(15, 'bech32');
  db = await testDatabases()[0]!.open();
  portal = await startTestApp(node, db);
});
after(async () => {
  await portal?.close();
  await db?.close();
  await node?.stop();
});

test('a full block with a CPFP pair prices at the lowest package the node mined, not at the parent’s own rate', async () => {
  // The block, in the node's order of package score: six big transactions,
  // a filler sized to leave only a few kWU free, then the CPFP pair (a
  // 1 sat/vB parent lifted to about 2.75 sat/vB by its 5 sat/vB child),
  // which fits in what is left; two more big ones at lower rates do not fit.
  const included: BuiltTx[] = [];
  for (const feeRate of [9, 8, 7, 6, 5, 4]) included.push(await node.buildOversize({ feeRate, outputs: BIG_OUTPUTS }));
  const parent = await node.buildTx({ feeRate: 1 });
  const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
  const oversizeBase = included[0]!.weight - BIG_OUTPUTS * OVERSIZE_OUTPUT_WEIGHT;
  const room = MAX_BLOCK_WEIGHT - RESERVED_WEIGHT - included.reduce((a, t) => a + t.weight, 0) - parent.weight - child.weight;
  const filler = await node.buildOversize({ feeRate: 3.5, outputs: Math.floor((room - 20_000 - oversizeBase) / OVERSIZE_OUTPUT_WEIGHT) });
  const leftOut = [await node.buildOversize({ feeRate: 2, outputs: BIG_OUTPUTS }), await node.buildOversize({ feeRate: 1.5, outputs: BIG_OUTPUTS })];
  const blockWeight = [...included, filler, parent, child].reduce((a, t) => a + t.weight, 0);
  assert.ok(blockWeight < MAX_BLOCK_WEIGHT - RESERVED_WEIGHT && blockWeight >= (MAX_BLOCK_WEIGHT - RESERVED_WEIGHT) * 0.99, `construction: ${blockWeight} WU`);

  for (const tx of [...included, filler, parent, child, ...leftOut]) await node.rpc.call('sendrawtransaction', [tx.hex]);

  const [template, mempoolInfo, mempool] = await Promise.all([
    node.rpc.call<Template>('getblocktemplate', [{ rules: ['segwit'] }]),
    node.rpc.call<MempoolInfo>('getmempoolinfo'),
    node.rpc.call<Record<string, MempoolEntry>>('getrawmempool', [true]),
  ]);
  const inTemplate = new Set(template.transactions.map((t) => t.txid));
  assert.deepEqual(
    [...inTemplate].sort(),
    [...included, filler, parent, child].map((t) => t.txid).sort(),
    'the node mined the planned block',
  );

  const view = await portal.mempool.view();
  assert.equal(view.nextBlockFull, true);
  assert.equal(view.mempool.txCount, mempoolInfo.size);
  // The engine's block 0 is the node's template: same transactions, same order.
  assert.deepEqual(view.nextBlockTxids(), template.transactions.map((tx) => tx.txid));
  const snap = { marketRate: view.marketRate };

  // The parent's own rate is what a "lowest own rate" rule would price at.
  const ownRate = (tx: Template['transactions'][number]) => tx.fee / Math.ceil(tx.weight / 4);
  assert.equal(Math.min(...template.transactions.map(ownRate)), 1);
  assert.ok(snap.marketRate > 1, `market rate ${snap.marketRate} is above the CPFP parent's own 1 sat/vB`);

  // Our vsize (sigop-adjusted, from getblocktemplate) is the node's.
  for (const t of template.transactions) assert.equal(Math.ceil(Math.max(t.weight, t.sigops * 20) / 4), mempool[t.txid]!.vsize, t.txid);

  // Independently, from the node's mempool entries: each included
  // transaction's ancestor-package rate, lifted by its best in-template
  // descendant; the lowest of those is the package the node ranked last.
  const ancestorRate = (txid: string) => btcToSats(mempool[txid]!.fees.ancestor) / mempool[txid]!.ancestorsize;
  const effective = (txid: string): number =>
    Math.max(ancestorRate(txid), ...mempool[txid]!.spentby.filter((d) => inTemplate.has(d)).map(effective));
  const expected = Math.min(...[...inTemplate].map(effective));
  assert.ok(Math.abs(snap.marketRate - expected) < 1e-9, `market rate ${snap.marketRate}, node's lowest included package ${expected}`);
  assert.equal(expected, ancestorRate(child.txid), 'the lowest-ranked package is the CPFP pair');
  assert.equal(expected, (parent.fee + child.fee) / (parent.vsize + child.vsize));

  // Whatever the node left out could not outbid the market rate.
  const omitted = Object.keys(mempool).filter((txid) => !inTemplate.has(txid));
  assert.deepEqual(omitted.sort(), leftOut.map((t) => t.txid).sort());
  for (const txid of omitted) assert.ok(ancestorRate(txid) <= snap.marketRate, `${txid} left out at ${ancestorRate(txid)} sat/vB`);

  // Per transaction: the pair in block 0 at the pair's rate, the ones left out in block 1.
  assert.deepEqual(view.transaction(parent.txid)?.position?.block, 0);
  assert.equal(view.transaction(parent.txid)?.functionalRate, expected);
  for (const tx of leftOut) assert.equal(view.transaction(tx.txid)?.position?.block, 1);

  // What a user sees: the minimum is the market rate times the multiplier (2), above the floor (2 sat/vB).
  const info = await get<{ fee_rate: number; block_height: number }>(portal.app, '/rest-api/getinfo');
  assert.ok(Math.abs(info.body.fee_rate - 2 * expected) < 1e-9, `getinfo fee_rate ${info.body.fee_rate}`);
  assert.equal(info.body.block_height, template.height - 1);
});
