import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { btcToSats } from '../src/bitcoin/amounts.ts';
import { MAX_BLOCK_WEIGHT } from '../src/bitcoin/tx-codec.ts';
import { summariseTemplate } from '../src/modules/pricing/market-rate.ts';
import { startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';

/**
 * The market rate against the oracle: the node's own block assembly
 * (getblocktemplate, selecting by ancestor-package score) over a mempool
 * that overfills a block and holds a child-pays-for-parent pair.
 *
 * The launcher's `-corepolicy=1` gives Core's 4,000,000 WU block (Knots' own
 * default is 1,200,000), so summariseTemplate's fullness check, which
 * assumes 4,000,000 WU, is exercised as it is; no -blockmaxweight here.
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
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(15, 'bech32');
});
after(async () => node?.stop());

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

  const snap = summariseTemplate(template, mempoolInfo, Date.now());
  assert.equal(snap.nextBlockFull, true);

  // The parent's own rate is what the old "lowest own rate" rule priced at.
  const ownRate = (t: Template['transactions'][number]) => t.fee / Math.ceil(t.weight / 4);
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
});
