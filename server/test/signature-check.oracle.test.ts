import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkSignatures } from '../src/bitcoin/signature-check.ts';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { fundCoins, signedSpend, type WalletInputType } from './helpers/signed-spends.ts';

/**
 * The portal's signature check (src/bitcoin/signature-check.ts) against the
 * regtest node's wallet: what the wallet signs, with any hash type, passes;
 * the same with one signature byte flipped, or unsigned, fails. With a
 * locktime already reached the node is the oracle too: testmempoolaccept
 * takes exactly the transactions the check passes.
 */

let node: TestNode;
before(async () => {
  node = await startTestNode();
});
after(async () => node?.stop());

const TYPES: WalletInputType[] = ['legacy', 'bech32', 'p2sh-segwit', 'bech32m'];

/** Flips one bit of a signature: in the scriptSig for a legacy input, in the first witness item otherwise. */
function flipSignature(hex: string, input: number, type: WalletInputType): string {
  const tx = decodeTxHex(hex);
  const flip = (h: string, at: number) => {
    const b = Buffer.from(h, 'hex');
    b[at]! ^= 0x01;
    return b.toString('hex');
  };
  return encodeTxHex({
    ...tx,
    inputs: tx.inputs.map((inp, i) => {
      if (i !== input) return inp;
      // Byte 10 of the scriptSig is inside the DER signature's R; byte 10 of a witness signature is inside R (ECDSA) or r (Schnorr).
      if (type === 'legacy') return { ...inp, scriptSig: flip(inp.scriptSig, 10) };
      return { ...inp, witness: [flip(inp.witness[0]!, 10), ...inp.witness.slice(1)] };
    }),
  });
}

describe('the signature check on transactions the regtest wallet signed', () => {
  for (const type of TYPES) {
    test(`${type} inputs: signed passes, one flipped byte or no signature fails, the node agrees`, async () => {
      const coins = await fundCoins(node, [type, type]);
      const height = await node.rpc.call<number>('getblockcount');

      // Non-final: the node refuses it before any script, the portal's check still reads the signatures.
      const future = await signedSpend(node, coins, { locktime: height + 50 });
      const [verdict] = await node.rpc.call<Array<{ allowed: boolean; 'reject-reason'?: string }>>('testmempoolaccept', [[future.hex]]);
      assert.equal(verdict?.['reject-reason'], 'non-final');
      assert.deepEqual(checkSignatures(decodeTxHex(future.hex), future.spent), { ok: true });
      assert.deepEqual(checkSignatures(decodeTxHex(flipSignature(future.hex, 1, type)), future.spent), { ok: false, input: 1, reason: 'invalid' });
      assert.deepEqual(checkSignatures(decodeTxHex(future.unsignedHex), future.spent), { ok: false, input: 0, reason: 'invalid' });

      // Final: the node itself judges the scripts, and agrees with the check either way.
      const now = await signedSpend(node, coins, { locktime: height });
      const flipped = flipSignature(now.hex, 0, type);
      const judged = await node.rpc.call<Array<{ allowed: boolean; 'reject-reason'?: string }>>('testmempoolaccept', [[now.hex]]);
      const judgedFlipped = await node.rpc.call<Array<{ allowed: boolean; 'reject-reason'?: string }>>('testmempoolaccept', [[flipped]]);
      assert.equal(judged[0]?.allowed, true, JSON.stringify(judged));
      assert.equal(judgedFlipped[0]?.allowed, false);
      assert.match(judgedFlipped[0]?.['reject-reason'] ?? '', /script-verify-flag-failed/);
      assert.equal(checkSignatures(decodeTxHex(now.hex), now.spent).ok, true);
      assert.equal(checkSignatures(decodeTxHex(flipped), now.spent).ok, false);
    });
  }

  test('every hash type the wallet signs with verifies (ALL, NONE, SINGLE, each with ANYONECANPAY; DEFAULT for taproot)', async () => {
    const height = await node.rpc.call<number>('getblockcount');
    const hashTypes = ['ALL', 'NONE', 'SINGLE', 'ALL|ANYONECANPAY', 'NONE|ANYONECANPAY', 'SINGLE|ANYONECANPAY'];
    const checked: string[] = [];
    for (const type of TYPES) {
      const coins = await fundCoins(node, [type, type]);
      for (const sighashType of type === 'bech32m' ? ['DEFAULT', ...hashTypes] : hashTypes) {
        const spend = await signedSpend(node, coins, { locktime: height + 50, sighashType, outputs: 2 });
        assert.deepEqual(checkSignatures(decodeTxHex(spend.hex), spend.spent), { ok: true }, `${type} ${sighashType}`);
        assert.equal(checkSignatures(decodeTxHex(flipSignature(spend.hex, 0, type)), spend.spent).ok, false, `${type} ${sighashType} flipped`);
        checked.push(`${type}/${sighashType}`);
      }
    }
    console.log(`checked ${checked.length} wallet-signed hash-type combinations: ${checked.join(', ')}`);
  });
});
