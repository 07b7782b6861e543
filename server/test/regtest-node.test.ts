import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { feeAt, startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';

/**
 * Smoke test of the regtest harness against the real node: every builder's
 * transaction is judged by the node itself (testmempoolaccept / submitpackage).
 */

interface MempoolAcceptResult {
  txid: string;
  allowed: boolean;
  vsize?: number;
  fees?: { base: number };
  'reject-reason'?: string;
}

interface Decoded {
  vin: Array<{ txid: string; vout: number; sequence: number; txinwitness?: string[] }>;
  vout: Array<{ value: number; scriptPubKey: { hex: string } }>;
}

let node: TestNode;
const spent = new Set<string>();

before(async () => {
  node = await startTestNode();
});

after(async () => {
  await node?.stop();
});

/** Asserts the node would accept `tx` alone, with our vsize and fee, and that no earlier builder spent its inputs. */
async function assertAccepted(tx: BuiltTx): Promise<void> {
  const [result] = await node.rpc.call<MempoolAcceptResult[]>('testmempoolaccept', [[tx.hex], 0]);
  assert.ok(result?.allowed, `not allowed: ${result?.['reject-reason']}`);
  assert.equal(result.txid, tx.txid);
  assert.equal(result.vsize, tx.vsize);
  assert.equal(Math.round((result.fees?.base ?? 0) * 1e8), tx.fee);
  for (const input of (await decoded(tx.hex)).vin) {
    const key = `${input.txid}:${input.vout}`;
    assert.ok(!spent.has(key), `coin ${key} handed out twice`);
    spent.add(key);
  }
}

/** The node's own decoding (this test checks the harness, not our codec). */
function decoded(hex: string): Promise<Decoded> {
  return node.rpc.call<Decoded>('decoderawtransaction', [hex]);
}

test('node starts with a funded descriptor wallet', async (t) => {
  t.diagnostic(`node ready in ${node.startupMs} ms (pid ${node.pid})`);
  const info = await node.rpc.call<{ chain: string; blocks: number }>('getblockchaininfo');
  assert.equal(info.chain, 'regtest');
  assert.ok(info.blocks >= 101);
  const wallet = await node.wallet.call<{ descriptors: boolean }>('getwalletinfo');
  assert.equal(wallet.descriptors, true);
  const started = Date.now();
  await node.ensureUtxos(40, 'bech32');
  t.diagnostic(`ensureUtxos(40) took ${Date.now() - started} ms`);
});

test('legacy transaction (no witness)', async () => {
  const tx = await node.buildTx({ feeRate: 3, addressType: 'legacy' });
  await assertAccepted(tx);
  assert.ok((await decoded(tx.hex)).vin.every((i) => i.txinwitness === undefined));
  assert.equal(tx.weight, 4 * tx.vsize);
  assert.equal(tx.fee, feeAt(3, tx.vsize));
});

test('segwit v0 transaction', async () => {
  const tx = await node.buildTx({ feeRate: 1.5 });
  await assertAccepted(tx);
  const { vin } = await decoded(tx.hex);
  assert.ok(vin.every((i) => i.txinwitness?.length === 2 && i.sequence === 0xfffffffd));
  assert.equal(tx.fee, feeAt(1.5, tx.vsize));
});

test('taproot transaction', async () => {
  const tx = await node.buildTx({ feeRate: 2, addressType: 'bech32m' });
  await assertAccepted(tx);
  const { vin, vout } = await decoded(tx.hex);
  assert.ok(vin.every((i) => i.txinwitness?.length === 1 && i.txinwitness[0]!.length === 128)); // key-path Schnorr signature
  assert.ok(vout.some((o) => o.scriptPubKey.hex.startsWith('5120')));
  assert.equal(tx.fee, feeAt(2, tx.vsize));
});

test('many inputs', async () => {
  const tx = await node.buildTx({ feeRate: 1, inputs: 25 });
  await assertAccepted(tx);
  assert.ok((await decoded(tx.hex)).vin.length >= 25);
  assert.equal(tx.fee, feeAt(1, tx.vsize));
});

test('many outputs with an OP_RETURN', async () => {
  const tx = await node.buildTx({ feeRate: 1, outputs: 300, opReturn: '68656c6c6f' });
  await assertAccepted(tx);
  const { vout } = await decoded(tx.hex);
  assert.ok(vout.length >= 301);
  assert.equal(tx.fee, feeAt(1, tx.vsize));
  assert.ok(vout.some((o) => o.scriptPubKey.hex === '6a0568656c6c6f'));
});

test('oversize transaction over 400,000 weight units', async () => {
  const tx = await node.buildOversize();
  assert.ok(tx.weight > 400_000, `weight ${tx.weight}`);
  assert.equal(tx.fee, feeAt(2, tx.vsize));
  await assertAccepted(tx);
});

test('child of an unbroadcast parent needs the package', async () => {
  const parent = await node.buildTx({ feeRate: 1 });
  const child = await node.buildChild({ parentHex: parent.hex, parentTxid: parent.txid, vout: 0, feeRate: 20 });
  assert.equal(child.fee, feeAt(20, child.vsize));

  const [alone] = await node.rpc.call<MempoolAcceptResult[]>('testmempoolaccept', [[child.hex]]);
  assert.equal(alone?.allowed, false);
  assert.equal(alone?.['reject-reason'], 'missing-inputs');

  const result = await node.rpc.call<{ package_msg: string; 'tx-results': Record<string, { txid: string; error?: string }> }>(
    'submitpackage',
    [[parent.hex, child.hex]],
  );
  assert.equal(result.package_msg, 'success');
  const txids = Object.values(result['tx-results']).map((r) => r.txid).sort();
  assert.deepEqual(txids, [parent.txid, child.txid].sort());
  const mempool = await node.rpc.call<string[]>('getrawmempool');
  assert.ok(mempool.includes(parent.txid) && mempool.includes(child.txid));
});

test('replacement of a broadcast transaction pays more and is accepted', async () => {
  const original = await node.buildTx({ feeRate: 2, outputs: 2 });
  await node.rpc.call('sendrawtransaction', [original.hex]);
  const replacement = await node.buildReplacement(original.hex, 10);
  assert.notEqual(replacement.txid, original.txid);
  assert.equal(replacement.fee, feeAt(10, replacement.vsize));
  assert.ok(replacement.fee > original.fee);
  const [result] = await node.rpc.call<MempoolAcceptResult[]>('testmempoolaccept', [[replacement.hex]]);
  assert.ok(result?.allowed, `replacement refused: ${result?.['reject-reason']}`);
  await node.rpc.call('sendrawtransaction', [replacement.hex]);
  const hashes = await node.mine();
  const block = await node.rpc.call<{ tx: string[] }>('getblock', [hashes[0], 1]);
  assert.ok(block.tx.includes(replacement.txid) && !block.tx.includes(original.txid));
});
