import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BuiltTx } from '../dev/bitcoin/regtest-wallet.ts';
import type { StatusResponse } from '../src/modules/status/status.schemas.ts';
import { fillRandomMempool } from './helpers/random-mempool.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The rate to beat for a transaction's size (`rate_to_beat` of GET
 * /rest-api/status-check) on a real node whose projected next block is
 * full: for a transaction larger than the block's free room and cheapest
 * packages, it is above the market rate (the lowest package rate in that
 * block), the bump advice and the Slipstream-compatible API give the same
 * figure, and it is the line that decides: a replacement paying just above
 * it is in the next projected block.
 */

let node: TestNode;
before(async () => {
  node = await startTestNode({ extraArgs: ['-checkmempool=0'] });
  await node.ensureUtxos(10);
});
after(async () => node?.stop());

const status = async (t: TestApp, txid: string) => (await get<StatusResponse>(t.app, `/rest-api/status-check?tx_id=${txid}`)).body;

/** The portal answers for what it recorded: here an attempt kept as failed (it timed out while the node took it). */
async function sendAndRecord(t: TestApp, tx: BuiltTx): Promise<void> {
  assert.equal(await node.rpc.call('sendrawtransaction', [tx.hex]), tx.txid);
  await t.db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors) VALUES ($1, $2, 'Timeout', ARRAY['The node did not answer in time'])`, [tx.txid, tx.hex]);
  await t.heard([tx.txid]);
}

/**
 * A replacement of `original` whose rate `accept`s, at the builder's
 * precision (rates of 3 decimals, ceil(rate × vsize) sats: about 155 sats a
 * step on a 155 kvB transaction), starting from `rate` and stepping by
 * `step` until it does.
 */
async function replacementAt(original: BuiltTx, rate: number, step: number, accept: (tx: BuiltTx) => boolean): Promise<BuiltTx> {
  for (let k = 0; k < 3; k++) {
    const built = await node.buildReplacement(original.hex, Math.round((rate + k * step) * 1000) / 1000);
    if (accept(built)) return built;
  }
  assert.fail(`no replacement of ${original.txid} from ${rate} sat/vB`);
}

async function emptyMempool(): Promise<void> {
  while ((await node.rpc.call<{ size: number }>('getmempoolinfo')).size > 0) await node.mine(1);
}

for (const engine of testDatabases()) {
  describe(`rate to beat for a transaction's size (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;

    before(async () => {
      db = await engine.open();
      t = await startTestApp(node, db);
      await fillRandomMempool(node, { seed: engine.name === 'pglite' ? 41 : 42, payments: 300, large: 60, sigopHeavy: 0, prioritised: 0 });
    });
    after(async () => {
      await t?.close();
      await db?.close();
      await emptyMempool();
    });

    test('an oversize transaction must beat more than the market rate; a replacement just above it enters the next block', async () => {
      assert.equal((await t.mempool.view()).nextBlockFull, true, 'the setup: a full projected next block');

      // Two oversize transactions (about 155 kvB each) at the node's minimum: neither in the next block.
      const belowOriginal = await node.buildOversize({ feeRate: 1 });
      const aboveOriginal = await node.buildOversize({ feeRate: 1 });
      await sendAndRecord(t, belowOriginal);
      await sendAndRecord(t, aboveOriginal);

      const waiting = await status(t, belowOriginal.txid);
      assert.equal(waiting.state, 'in_mempool');
      assert.notEqual(waiting.transaction.position.block, 0);
      const rateToBeat = waiting.rate_to_beat!;
      assert.ok(rateToBeat > waiting.market_rate!, `rate to beat ${rateToBeat} against the market rate ${waiting.market_rate}`);
      // The bump advice and the Slipstream-compatible API give the same figure.
      assert.equal(waiting.bump!.rate_to_beat, rateToBeat);
      assert.equal(waiting.bump!.rbf!.binding, 'rate_to_beat');
      const compatible = await get<{ rate_to_beat: number | null }>(t.app, `/api/transactions/status?tx_id=${belowOriginal.txid}`);
      assert.equal(compatible.body.rate_to_beat, rateToBeat);

      // Enough, not exact: the figure pushes out block 0's members cheapest first by functional rate, while the
      // assembler took some at a lower ancestor score, so a package a hair below it may still get in.
      // Just above: the other one's replacement pays at most 0.002 sat/vB more, and enters the next block.
      const toBeat = (await status(t, aboveOriginal.txid)).rate_to_beat!;
      const above = await replacementAt(aboveOriginal, Math.floor(toBeat * 1000) / 1000 + 0.001, 0.001, (tx) => tx.fee / tx.vsize > toBeat);
      assert.ok(above.fee / above.vsize - toBeat < 0.002, `${above.fee / above.vsize} against ${toBeat}`);
      await sendAndRecord(t, above);
      const aboveAnswer = await status(t, above.txid);
      assert.equal(aboveAnswer.transaction.position.block, 0, `${above.fee / above.vsize} sat/vB against ${toBeat}`);
      assert.equal(aboveAnswer.bump, null);
      // In the next block, the rate it beats there is at most what it pays.
      assert.ok(aboveAnswer.rate_to_beat! <= aboveAnswer.functional_rate! + 1e-9, `${aboveAnswer.rate_to_beat} against ${aboveAnswer.functional_rate}`);
    });

    test('a transaction in the next block pays at least its rate to beat; once mined there is none', async () => {
      const small = await node.buildTx({ feeRate: 300 });
      await sendAndRecord(t, small);
      const waiting = await status(t, small.txid);
      assert.equal(waiting.transaction.position.block, 0);
      assert.ok(waiting.rate_to_beat! <= waiting.functional_rate!);
      await emptyMempool();
      const mined = await status(t, small.txid);
      assert.equal(mined.state, 'confirmed');
      assert.equal(mined.rate_to_beat, null);
      assert.equal((await get<{ rate_to_beat: number | null }>(t.app, `/api/transactions/status?tx_id=${small.txid}`)).body.rate_to_beat, null);
    });
  });
}
