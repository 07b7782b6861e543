import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BuiltTx } from '../dev/bitcoin/regtest-wallet.ts';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import type { StatusResponse } from '../src/modules/status/status.schemas.ts';
import { ASSUMED_CHILD_VSIZE } from '../src/modules/status/bump-advice.ts';
import { rateToEnter } from '../src/modules/status/rate-to-enter.ts';
import { fillRandomMempool } from './helpers/random-mempool.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, startTestApp, type TestApp } from './helpers/test-app.ts';
import { walletChild } from './helpers/signed-spends.ts';

/**
 * The bump advice of GET /rest-api/status-check on a real node whose mempool
 * spans several blocks: a transaction behind the next block gets a CPFP
 * figure that, paid by a child built here, lifts the package into the next
 * projected block; and an RBF figure the node accepts for a replacement,
 * one sat less being refused where BIP125 is the binding rule.
 */

let node: TestNode;
before(async () => {
  node = await startTestNode({ extraArgs: ['-checkmempool=0'] });
  await node.ensureUtxos(20);
});
after(async () => node?.stop());

const status = (t: TestApp, txid: string) => get<StatusResponse>(t.app, `/rest-api/status-check?tx_id=${txid}`);

/** The portal answers for what it recorded: here an attempt kept as failed (it timed out while the node took it). */
async function record(t: TestApp, tx: BuiltTx): Promise<void> {
  await t.db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors) VALUES ($1, $2, 'Timeout', ARRAY['The node did not answer in time'])`, [tx.txid, tx.hex]);
  await t.heard([tx.txid]);
}

/** The builders take a rate (3 decimals) and pay ceil(rate × vsize): the rate paying exactly `fee` over `vsize`. */
const rateFor = (fee: number, vsize: number) => Math.floor((fee * 1000) / vsize) / 1000;

/** Builds until the signed transaction pays exactly `fee` (a signature a byte short changes the vsize the rate applies to). */
async function payingExactly(fee: number, firstVsize: number, build: (rate: number) => Promise<BuiltTx>): Promise<BuiltTx> {
  let built = await build(rateFor(fee, firstVsize));
  for (let k = 0; k < 3 && built.fee !== fee; k++) built = await build(rateFor(fee, built.vsize));
  assert.equal(built.fee, fee, `built ${built.fee} sats for ${built.vsize} vB`);
  return built;
}

/** The larger of a transaction's outputs (the builders pay 20,000 sats and a larger change, in either order). */
const largestVout = (hex: string) => {
  const { outputs } = decodeTxHex(hex);
  return outputs.reduce((best, o, i) => (o.value > outputs[best]!.value ? i : best), 0);
};

/** `built` again, opting out of BIP125 (every nSequence 0xffffffff) and signed anew: same fee, about the same size. */
async function nonSignalling(built: BuiltTx): Promise<BuiltTx> {
  const tx = decodeTxHex(built.hex);
  const unsigned = encodeTxHex({ ...tx, inputs: tx.inputs.map((i) => ({ ...i, sequence: 0xffff_ffff, witness: [] })) });
  const signed = await node.wallet.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [unsigned]);
  assert.ok(signed.complete);
  const decoded = decodeTxHex(signed.hex);
  assert.ok(decoded.inputs.every((i) => i.sequence === 0xffff_ffff));
  return { hex: signed.hex, txid: decoded.txid, fee: built.fee, vsize: decoded.vsize, weight: decoded.weight };
}

/**
 * The child the CPFP figure assumes: one input spending `outpoint`, one
 * P2WPKH output, paying `fee`; the wallet signs it (it holds the parent's keys).
 */
async function assumedChild(parentHex: string, vout: number, fee: number): Promise<BuiltTx> {
  return { ...(await walletChild(node, parentHex, vout, fee)), fee };
}

async function emptyMempool(): Promise<void> {
  while ((await node.rpc.call<{ size: number }>('getmempoolinfo')).size > 0) await node.mine(1);
}

for (const engine of testDatabases()) {
  describe(`bump advice (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;

    before(async () => {
      db = await engine.open();
      t = await startTestApp(node, db);
      await fillRandomMempool(node, { seed: engine.name === 'pglite' ? 31 : 32, payments: 300, large: 60, sigopHeavy: 0, prioritised: 0 });
    });
    after(async () => {
      await t?.close();
      await db?.close();
      await emptyMempool();
    });

    test('a competitive transaction gets no advice', async () => {
      const rich = await node.buildTx({ feeRate: 300 });
      await node.rpc.call('sendrawtransaction', [rich.hex]);
      await record(t, rich);
      const { body } = await status(t, rich.txid);
      assert.equal(body.transaction.position.block, 0);
      assert.equal(body.bump, null);
    });

    test('CPFP: a child paying the advised fee, spending the advised output, lifts the package into the next block', async () => {
      const view = await t.mempool.view();
      assert.equal(view.nextBlockFull, true);
      const cheap = await node.buildTx({ feeRate: 1 });
      await node.rpc.call('sendrawtransaction', [cheap.hex]);
      await record(t, cheap);

      const { body } = await status(t, cheap.txid);
      assert.ok(body.transaction.position.block === null || body.transaction.position.block > 0, `block ${body.transaction.position.block}`);
      const bump = body.bump!;
      assert.ok(bump, 'advice for a transaction behind the next block');
      assert.ok(bump.rate_to_beat >= body.market_rate!, `${bump.rate_to_beat} against ${body.market_rate}`);
      assert.deepEqual(bump.package, { vsize: cheap.vsize, fee: cheap.fee, ancestors: 0, rate: cheap.fee / cheap.vsize });
      // The Slipstream-compatible API carries the same advice.
      const compatible = await get<{ bump_advice: unknown }>(t.app, `/api/transactions/status?tx_id=${cheap.txid}`);
      assert.deepEqual(compatible.body.bump_advice, bump);
      const cpfp = bump.cpfp!;
      const [parentTxid, vout] = cpfp.output.split(':');
      assert.equal(parentTxid, cheap.txid);
      assert.equal(cpfp.child_vsize, ASSUMED_CHILD_VSIZE);
      // Just above the rate that enters the next block over the package with the assumed child, and not a sat more.
      const total = cheap.vsize + ASSUMED_CHILD_VSIZE;
      assert.ok(cpfp.rate_to_enter >= bump.rate_to_beat, `${cpfp.rate_to_enter} against ${bump.rate_to_beat}`);
      assert.ok((cheap.fee + cpfp.child_fee) / total > cpfp.rate_to_enter);
      assert.ok((cheap.fee + cpfp.child_fee - 1) / total <= cpfp.rate_to_enter);

      const child = await payingExactly(cpfp.child_fee, ASSUMED_CHILD_VSIZE, (feeRate) => node.buildChild({ parentHex: cheap.hex, vout: Number(vout), feeRate }));
      await node.rpc.call('sendrawtransaction', [child.hex]);
      // The portal's own child: a public functional rate counts only the relatives the portal recorded.
      await record(t, child);

      const after = (await status(t, cheap.txid)).body;
      assert.equal(after.transaction.position.block, 0, `package rate ${after.functional_rate} against ${after.market_rate}`);
      assert.ok(after.functional_rate! >= after.market_rate!);
      assert.equal(after.bump, null);
    });

    test('RBF: the advised replacement fee is accepted, one sat less refused when BIP125 binds', async () => {
      const market = (await t.mempool.view()).marketRate;
      // Just below the rate to beat, so that BIP125's increment, not the rate to beat, sets the replacement's fee.
      const original = await node.buildTx({ feeRate: Math.floor((market - 0.05) * 1000) / 1000 });
      await node.rpc.call('sendrawtransaction', [original.hex]);
      await record(t, original);

      const { body } = await status(t, original.txid);
      assert.notEqual(body.transaction.position.block, 0);
      const rbf = body.bump!.rbf!;
      assert.ok(rbf, 'the builder signals BIP125 on every input');
      assert.equal(rbf.vsize, original.vsize);
      assert.equal(rbf.replaced_fees, original.fee);
      const incremental = (await node.rpc.call<{ incrementalfee: number }>('getnetworkinfo')).incrementalfee * 1e5; // sat/vB
      assert.equal(rbf.bip125_minimum, original.fee + Math.ceil(incremental * original.vsize - 1e-9));
      assert.equal(rbf.binding, 'bip125');
      assert.equal(rbf.fee, rbf.bip125_minimum);

      const short = await payingExactly(rbf.fee - 1, original.vsize, (feeRate) => node.buildReplacement(original.hex, feeRate));
      if (short.vsize === original.vsize) {
        await assert.rejects(node.rpc.call('sendrawtransaction', [short.hex]), /insufficient fee/);
      }
      const replacement = await payingExactly(rbf.fee, original.vsize, (feeRate) => node.buildReplacement(original.hex, feeRate));
      assert.equal(await node.rpc.call('sendrawtransaction', [replacement.hex]), replacement.txid);
    });
    test('RBF with an unconfirmed ancestor behind the next block: the replacement pays for the package it enters with', async () => {
      // A cheap parent and a cheap child, neither in the next block: a replacement of the child keeps the parent.
      // Both the portal's: the advice counts only the ancestors the portal recorded.
      const parent = await node.buildTx({ feeRate: 1 });
      await node.rpc.call('sendrawtransaction', [parent.hex]);
      await record(t, parent);
      const original = await node.buildChild({ parentHex: parent.hex, vout: largestVout(parent.hex), feeRate: 1 });
      await node.rpc.call('sendrawtransaction', [original.hex]);
      await record(t, original);

      const { body } = await status(t, original.txid);
      assert.notEqual(body.transaction.position.block, 0);
      const bump = body.bump!;
      assert.deepEqual(bump.package, { vsize: parent.vsize + original.vsize, fee: parent.fee + original.fee, ancestors: 1, rate: (parent.fee + original.fee) / (parent.vsize + original.vsize) });
      const rbf = bump.rbf!;
      assert.ok(rbf, 'the builder signals BIP125');
      assert.equal(rbf.binding, 'rate_to_beat');
      // Over the package (the parent and the replacement), just above the rate that enters the next block, and not a sat more.
      const total = parent.vsize + original.vsize;
      const rate = rateToEnter(await t.mempool.view(), total);
      assert.ok((parent.fee + rbf.fee) / total > rate, `${parent.fee + rbf.fee} sats over ${total} vB against ${rate}`);
      assert.ok((parent.fee + rbf.fee - 1) / total <= rate);

      const replacement = await payingExactly(rbf.fee, original.vsize, (feeRate) => node.buildReplacement(original.hex, feeRate));
      assert.equal(await node.rpc.call('sendrawtransaction', [replacement.hex]), replacement.txid);
      await record(t, replacement);
      const after = (await status(t, replacement.txid)).body;
      assert.equal(after.transaction.position.block, 0, `package rate ${after.functional_rate} against ${after.market_rate}`);
      assert.equal(after.bump, null);
      assert.match(rbf.explanation, /1 unconfirmed ancestor/);
    });

    test('RBF without BIP125 signalling: advised exactly when the node replaces any transaction, and the node takes the replacement', async () => {
      const { fullrbf } = await node.rpc.call<{ fullrbf?: boolean }>('getmempoolinfo');
      const original = await nonSignalling(await node.buildTx({ feeRate: 1 }));
      await node.rpc.call('sendrawtransaction', [original.hex]);
      await record(t, original);

      const { body } = await status(t, original.txid);
      assert.notEqual(body.transaction.position.block, 0);
      const rbf = body.bump!.rbf;
      if (fullrbf === false) {
        assert.equal(rbf, null, 'the node honours opt-out');
        return;
      }
      assert.ok(rbf, `the node reports fullrbf ${fullrbf}: any transaction is replaceable`);
      assert.match(rbf.explanation, /full RBF/);
      const replacement = await payingExactly(rbf.fee, original.vsize, (feeRate) => node.buildReplacement(original.hex, feeRate));
      assert.equal(await node.rpc.call('sendrawtransaction', [replacement.hex]), replacement.txid);
    });

    test('CPFP: an output a child submitted here already spends is not advised', async () => {
      const parent = await node.buildTx({ feeRate: 1, outputs: 2 });
      await node.rpc.call('sendrawtransaction', [parent.hex]);
      const largest = largestVout(parent.hex);
      // A cheap child of the largest output, submitted here: the package stays behind the next block, and that output is taken.
      const taken = await node.buildChild({ parentHex: parent.hex, vout: largest, feeRate: 1 });
      await node.rpc.call('sendrawtransaction', [taken.hex]);
      await record(t, taken);
      await record(t, parent);

      const { body } = await status(t, parent.txid);
      assert.notEqual(body.transaction.position.block, 0);
      const cpfp = body.bump!.cpfp!;
      assert.ok(cpfp, 'a payment output is still free to spend');
      const vout = Number(cpfp.output.split(':')[1]);
      assert.notEqual(vout, largest);
      // The node takes a child of the advised output beside the one already there, and the package enters the next block.
      const child = await assumedChild(parent.hex, vout, cpfp.child_fee);
      assert.equal(await node.rpc.call('sendrawtransaction', [child.hex]), child.txid);
      assert.equal((await status(t, parent.txid)).body.transaction.position.block, 0);
    });

    for (const [addressType, childVsize] of [['bech32m', 99], ['legacy', 190]] as const) {
      test(`CPFP: the child is sized by the spent output's script (${addressType}: ${childVsize} vB)`, async () => {
        const parent = await node.buildTx({ feeRate: 1, addressType });
        await node.rpc.call('sendrawtransaction', [parent.hex]);
        await record(t, parent);

        const { body } = await status(t, parent.txid);
        assert.notEqual(body.transaction.position.block, 0);
        const cpfp = body.bump!.cpfp!;
        assert.equal(cpfp.child_vsize, childVsize);
        const vout = Number(cpfp.output.split(':')[1]);
        assert.equal(cpfp.output_value, decodeTxHex(parent.hex).outputs[vout]!.value);
        // The node measures such a child at the assumed size (a short ECDSA signature saves a vbyte or two, never adds one).
        const child = await assumedChild(parent.hex, vout, cpfp.child_fee);
        assert.ok(child.vsize <= childVsize && child.vsize >= childVsize - 2, `the node measures ${child.vsize} vB`);
        assert.equal(await node.rpc.call('sendrawtransaction', [child.hex]), child.txid);
        assert.equal((await status(t, parent.txid)).body.transaction.position.block, 0);
      });
    }
  });
}
