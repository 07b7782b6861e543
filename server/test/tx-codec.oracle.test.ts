import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { decodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';

/**
 * The in-process decoder against the oracle: the node's own
 * decoderawtransaction, on every kind of transaction the wallet can make.
 */

interface NodeTx {
  txid: string;
  hash: string;
  version: number;
  size: number;
  vsize: number;
  weight: number;
  locktime: number;
  vin: Array<{ txid: string; vout: number; sequence: number; scriptSig: { hex: string }; txinwitness?: string[] }>;
  vout: Array<{ value: number; scriptPubKey: { hex: string } }>;
}

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(40, 'bech32');
});
after(async () => node?.stop());

const kinds: Array<[string, () => Promise<BuiltTx>]> = [
  ['legacy (no witness)', () => node.buildTx({ feeRate: 3, addressType: 'legacy' })],
  ['segwit v0', () => node.buildTx({ feeRate: 3, addressType: 'bech32' })],
  ['taproot', () => node.buildTx({ feeRate: 3, addressType: 'bech32m' })],
  ['many inputs', () => node.buildTx({ feeRate: 3, inputs: 30 })],
  ['many outputs', () => node.buildTx({ feeRate: 3, outputs: 300 })],
  ['with OP_RETURN', () => node.buildTx({ feeRate: 3, opReturn: 'deadbeef'.repeat(10) })],
  ['over 400,000 WU', () => node.buildOversize({ feeRate: 2 })],
];

for (const [kind, build] of kinds) {
  test(`decoding agrees with the node's decoderawtransaction: ${kind}`, async () => {
    const { hex } = await build();
    const ours = decodeTxHex(hex);
    const theirs = await node.rpc.call<NodeTx>('decoderawtransaction', [hex]);
    assert.equal(ours.txid, theirs.txid);
    assert.equal(ours.wtxid, theirs.hash);
    assert.equal(ours.version, theirs.version);
    assert.equal(ours.locktime, theirs.locktime);
    assert.equal(ours.size, theirs.size);
    assert.equal(ours.vsize, theirs.vsize);
    assert.equal(ours.weight, theirs.weight);
    assert.equal(ours.hasWitness, theirs.vin.some((i) => (i.txinwitness ?? []).length > 0));
    assert.deepEqual(
      ours.inputs.map((i) => ({ txid: i.txid, vout: i.vout, sequence: i.sequence, scriptSig: i.scriptSig, witness: i.witness })),
      theirs.vin.map((i) => ({ txid: i.txid, vout: i.vout, sequence: i.sequence, scriptSig: i.scriptSig.hex, witness: i.txinwitness ?? [] })),
    );
    assert.deepEqual(
      ours.outputs,
      theirs.vout.map((o) => ({ value: btcToSats(o.value), scriptPubKey: o.scriptPubKey.hex })),
    );
  });
}
