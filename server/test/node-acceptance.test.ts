import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { compactSizeLength, writeCompactSize } from '../src/bitcoin/compact-size.ts';
import { encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { OP_TRUE_P2WSH } from './helpers/keyless-spends.ts';
import { startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';

/**
 * What the embedded pool node takes, one transaction class at a time
 * (docs/production.md#which-node-for-which-transactions). The node is the
 * project's Knots with the pool defaults (`-acceptnonstdtxn=1
 * -corepolicy=1`, node-launcher.ts) and the most permissive policy flags it
 * has: any data carrier size, bare multisig permitted, no dust limit. What
 * it refuses whatever its flags (an output script over 34 bytes, 83 for
 * OP_RETURN: `bad-txns-vout-script-toolarge`) is recorded as such, and is why
 * a pool that wants those classes runs another node.
 *
 * Each verdict is the node's own (testmempoolaccept, or submitpackage for
 * the classes that need their child), and each test fails if the node
 * starts deciding otherwise, so the table in docs/production.md stays true.
 */

const PERMISSIVE = ['-datacarriersize=100000', '-permitbaremultisig=1', '-dustrelayfee=0'];

let node: TestNode;
before(async () => {
  node = await startTestNode({ extraArgs: PERMISSIVE });
  await node.ensureUtxos(14);
});
after(async () => node?.stop());

interface Accept {
  allowed?: boolean;
  'reject-reason'?: string;
  vsize?: number;
}

async function verdict(tx: BuiltTx | string): Promise<Accept> {
  const [answer] = await node.rpc.call<Accept[]>('testmempoolaccept', [[typeof tx === 'string' ? tx : tx.hex], 0]);
  return answer!;
}

const hex = (bytes: number, fill = 'ab') => fill.repeat(bytes);
/** A script push of `data` (hex), as the shortest opcode for its length. */
function push(data: string): string {
  const n = data.length / 2;
  if (n < 0x4c) return n.toString(16).padStart(2, '0') + data;
  if (n <= 0xff) return `4c${n.toString(16).padStart(2, '0')}${data}`;
  if (n <= 0xffff) return `4d${Buffer.from([n & 0xff, n >> 8]).toString('hex')}${data}`;
  const size = Buffer.alloc(4);
  size.writeUInt32LE(n);
  return `4e${size.toString('hex')}${data}`;
}
const opReturn = (dataBytes: number) => `6a${push(hex(dataBytes))}`;
/** Pay-to-anchor (BIP 433 / Core 28): OP_1 <0x4e73>, spent with an empty witness. */
const P2A = '51024e73';

/** A child spending output `vout` of `parent` whose script needs no signature (P2A), paying `fee` out of it. */
function keylessChild(parent: BuiltTx, vout: number, value: number, fee: number, version = 2): string {
  return encodeTxHex({
    version,
    locktime: 0,
    inputs: [{ txid: parent.txid, vout, scriptSig: '', sequence: 0xffff_fffd, witness: [] }],
    outputs: [{ value: value - fee, scriptPubKey: value - fee > 0 ? OP_TRUE_P2WSH : opReturn(4) }],
  });
}

describe('what the embedded pool node accepts, by transaction class', () => {
  test('OP_RETURN: 80 bytes of data is taken; 84 bytes and 100,000 bytes are refused whatever -datacarriersize says', async () => {
    assert.equal((await verdict(await node.buildWithOutputs({ outputs: [{ value: 0, scriptPubKey: opReturn(80) }], feeRate: 2 }))).allowed, true);
    for (const bytes of [84, 100_000]) {
      const answer = await verdict(await node.buildWithOutputs({ outputs: [{ value: 0, scriptPubKey: opReturn(bytes) }], feeRate: 2 }));
      assert.deepEqual([answer.allowed, answer['reject-reason']], [false, 'bad-txns-vout-script-toolarge'], `${bytes} bytes`);
    }
  });

  test('several OP_RETURN outputs in one transaction are taken', async () => {
    const tx = await node.buildWithOutputs({ outputs: [0, 1, 2].map(() => ({ value: 0, scriptPubKey: opReturn(40) })), feeRate: 2 });
    assert.deepEqual(await verdict(tx).then((a) => [a.allowed, a['reject-reason']]), [true, undefined]);
  });

  test('bare multisig as Bitcoin Stamps use it (1-of-3, data in the keys) is refused: the script is over 34 bytes', async () => {
    const keys = [0, 1, 2].map((i) => push(`0${2 + (i % 2)}${hex(32, (i + 1).toString(16).padStart(2, '0'))}`)).join('');
    const tx = await node.buildWithOutputs({ outputs: [{ value: 7_800, scriptPubKey: `51${keys}53ae` }], feeRate: 2 });
    assert.deepEqual(await verdict(tx).then((a) => [a.allowed, a['reject-reason']]), [false, 'bad-txns-vout-script-toolarge']);
  });

  test('a pay-to-anchor output is taken, and spent by a child with an empty witness', async () => {
    const parent = await node.buildWithOutputs({ outputs: [{ value: 240, scriptPubKey: P2A }], feeRate: 2 });
    assert.equal((await verdict(parent)).allowed, true);
    await node.rpc.call('sendrawtransaction', [parent.hex]);
    const child = keylessChild(parent, 1, 240, 0);
    // 0 sats of fee on its own: the node wants its minimum; the anchor's value pays for it instead.
    const paying = encodeTxHex({ version: 2, locktime: 0, inputs: [{ txid: parent.txid, vout: 1, scriptSig: '', sequence: 0xffff_fffd, witness: [] }], outputs: [{ value: 0, scriptPubKey: opReturn(4) }] });
    assert.deepEqual(await verdict(paying).then((a) => [a.allowed, a['reject-reason']]), [true, undefined]);
    assert.equal((await verdict(child)).allowed, false, 'a child paying nothing is below the minimum');
    await node.mine(1);
  });

  test('TRUC (version 3): taken alone, and a 0-fee TRUC parent with its child as a package', async () => {
    const alone = await node.buildWithOutputs({ outputs: [{ value: 10_000, scriptPubKey: P2A }], feeRate: 2, version: 3 });
    assert.equal((await verdict(alone)).allowed, true);
    const parent = await node.buildWithOutputs({ outputs: [{ value: 20_000, scriptPubKey: P2A }], feeRate: 0, version: 3 });
    assert.equal((await verdict(parent))['reject-reason'], 'min relay fee not met', 'alone it pays nothing');
    const child = keylessChild(parent, 1, 20_000, 5_000, 3);
    const result = await node.rpc.call<{ package_msg: string; 'tx-results': Record<string, { error?: string }> }>('submitpackage', [[parent.hex, child]]);
    assert.equal(result.package_msg, 'success', JSON.stringify(result));
    await node.mine(1);
  });

  test('a 0-fee parent that is not TRUC, with a child paying for both: refused (this Knots wants the parent to pay the relay minimum; Core 31 takes the pair)', async () => {
    const parent = await node.buildWithOutputs({ outputs: [{ value: 20_000, scriptPubKey: P2A }], feeRate: 0 });
    const child = keylessChild(parent, 1, 20_000, 5_000);
    const result = await node.rpc.call<{ package_msg: string; 'tx-results': Record<string, { txid: string; error?: string }> }>('submitpackage', [[parent.hex, child]]);
    assert.equal(result.package_msg, 'transaction failed');
    const parentResult = Object.values(result['tx-results']).find((r) => r.txid === parent.txid);
    assert.match(parentResult?.error ?? '', /^min relay fee not met/, JSON.stringify(result));
  });

  test('ephemeral dust: a 0-fee TRUC parent with a 0-value anchor is taken with its child even when the child leaves the dust unspent (dust rules are standardness, off on the pool node)', async () => {
    // The child's money comes from a second keyless output (P2WSH of OP_TRUE): no signature anywhere in the child.
    const parent = await node.buildWithOutputs({ outputs: [{ value: 0, scriptPubKey: P2A }, { value: 20_000, scriptPubKey: OP_TRUE_P2WSH }], feeRate: 0, version: 3 });
    const child = encodeTxHex({
      version: 3,
      locktime: 0,
      inputs: [{ txid: parent.txid, vout: 2, scriptSig: '', sequence: 0xffff_fffd, witness: ['51'] }],
      outputs: [{ value: 15_000, scriptPubKey: OP_TRUE_P2WSH }],
    });
    const result = await node.rpc.call<{ package_msg: string }>('submitpackage', [[parent.hex, child]]);
    assert.equal(result.package_msg, 'success', JSON.stringify(result));
    await node.mine(1);
  });

  for (const [name, dataBytes] of [
    ['below 400,000 weight units', 60_000],
    ['above 400,000 weight units', 410_000],
  ] as const) {
    test(`an inscription-style tapscript envelope ${name} is refused: this Knots's script policy rejects OP_IF in tapscript (with every flag tried here)`, async () => {
      const { scriptPubKey, spend } = envelope(dataBytes);
      const funding = await node.buildWithOutputs({ outputs: [{ value: 2_000_000, scriptPubKey }], feeRate: 2 });
      await node.rpc.call('sendrawtransaction', [funding.hex]);
      await node.mine(1); // confirmed: the reveal is judged alone, not against the unconfirmed chain's size limits
      const reveal = spend(funding.txid, 1, 2_000_000, 2_000_000 - Math.ceil((dataBytes / 4 + 200) * 2));
      const answer = await verdict(reveal);
      assert.equal(answer.allowed, false, JSON.stringify(answer));
      assert.match(answer['reject-reason'] ?? '', /^mempool-script-verify-flag-failed \(OP_IF\/NOTIF argument must be minimal in tapscript\)$/, JSON.stringify(answer));
      // The same spend is valid by consensus: a block may carry it (mined here by the node's own generateblock).
      const mined = await node.rpc.call<{ hash: string }>('generateblock', [await node.address(), [reveal]]);
      const block = await node.rpc.call<{ tx: string[]; weight: number }>('getblock', [mined.hash, 1]);
      assert.equal(block.tx.length, 2);
      assert.equal(block.weight > 400_000, dataBytes > 400_000, `block weight ${block.weight}`);
    });
  }
});

/**
 * A taproot output whose one leaf is `OP_FALSE OP_IF <data in 520-byte
 * pushes> OP_ENDIF OP_TRUE` (the envelope inscriptions use, ending in
 * OP_TRUE instead of a signature check), with BIP 341's unspendable
 * internal key: spent by the script path with no signature.
 */
function envelope(dataBytes: number): { scriptPubKey: string; spend: (txid: string, vout: number, value: number, outValue: number) => string } {
  const chunks: string[] = [];
  for (let left = dataBytes; left > 0; left -= 520) chunks.push(push(hex(Math.min(520, left), 'cd')));
  const leaf = Buffer.from(`0063${chunks.join('')}6851`, 'hex');
  const size = Buffer.alloc(compactSizeLength(leaf.length));
  writeCompactSize(size, 0, leaf.length);
  const leafHash = schnorr.utils.taggedHash('TapLeaf', Buffer.concat([Buffer.from([0xc0]), size, leaf]));
  // H from BIP 341: no one knows its discrete logarithm, so the key path cannot be used.
  const internal = Buffer.from('50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0', 'hex');
  const tweak = BigInt(`0x${Buffer.from(schnorr.utils.taggedHash('TapTweak', Buffer.concat([internal, leafHash]))).toString('hex')}`);
  const output = schnorr.utils.lift_x(BigInt(`0x${internal.toString('hex')}`)).add(secp256k1.Point.BASE.multiply(tweak));
  const { x, y } = output.toAffine();
  const outputKey = x.toString(16).padStart(64, '0');
  const control = Buffer.concat([Buffer.from([0xc0 | Number(y & 1n)]), internal]).toString('hex');
  return {
    scriptPubKey: `5120${outputKey}`,
    spend: (txid, vout, _value, outValue) =>
      encodeTxHex({
        version: 2,
        locktime: 0,
        inputs: [{ txid, vout, scriptSig: '', sequence: 0xffff_fffd, witness: [leaf.toString('hex'), control] }],
        outputs: [{ value: outValue, scriptPubKey: OP_TRUE_P2WSH }],
      }),
  };
}
