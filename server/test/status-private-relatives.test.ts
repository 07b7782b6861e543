import { ASK_THE_DATABASE } from '../src/modules/submission/portal-txid-index.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { decodeTxHex } from '../src/bitcoin/tx-codec.ts';
import type { StatusResponse } from '../src/modules/status/status.schemas.ts';
import { createStatusService } from '../src/modules/status/status.service.ts';
import { recording } from './helpers/call-trace.ts';
import { startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';
import { openEventStream, type SseFrame } from './helpers/sse-client.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, quietLog, startTestApp, type TestApp } from './helpers/test-app.ts';
import { walletChild } from './helpers/signed-spends.ts';

/**
 * A status answer's figures come from the portal's own view of the pool's
 * private mempool: a transaction submitted here, behind the next block,
 * keeps its functional rate and every figure of its bump advice when a
 * child the portal never saw (sent straight to the node, paying 0.05 BTC)
 * lifts it into the next block, or when the pool prioritises it
 * (prioritisetransaction); otherwise the child's fee and size could be read
 * off the parent's package rate. What such a child can still change is the
 * projected block number, and the position then gives the block alone. A
 * child submitted here does lift its parent's functional rate: the
 * portal's own may be described.
 *
 * The mempool is built so that the rate to beat cannot move when a package
 * enters the next block: a projected block of 100,000 weight units filled
 * with transactions of one shape at one rate, so whichever of them a
 * package pushes out, the lowest rate left in the block is the same.
 */

let node: TestNode;
before(async () => {
  node = await startTestNode({ extraArgs: ['-checkmempool=0'] });
  await node.ensureUtxos(FILLERS + 10);
});
after(async () => node?.stop());

/** 100,000 WU less the coinbase's 8,000: 177 one-input, two-output P2WPKH transactions (141 vB) fill it to over 99 %. */
const BLOCK_POLICY = { maxBlockWeight: 108_000, minFeeRatePerKvB: 1 };
const FILLERS = 190;
const FILLER_RATE = 10;
const PRIVATE_CHILD_FEE = 5_000_000;
/** The portal's node refuses more than 10,000 sat/vB (sendrawtransaction's default maxfeerate): its child pays 0.01 BTC. */
const PORTAL_CHILD_FEE = 1_000_000;

type Answer = StatusResponse & { status?: string; message?: string };
interface CompatibleAnswer {
  functional_rate: number | null;
  rate_to_beat: number | null;
  projected_block: number | null;
  bump_advice: unknown;
}

const isStatus = (f: SseFrame) => f.kind === 'event' && f.event === 'status';

/** The change output (the larger of the builder's two outputs). */
const changeVout = (hex: string) => {
  const { outputs } = decodeTxHex(hex);
  return outputs.reduce((best, o, i) => (o.value > outputs[best]!.value ? i : best), 0);
};

/** A child of `parent`'s output `vout` with one P2WPKH output, paying exactly `fee`; the wallet signs it. */
async function childPaying(parent: BuiltTx, vout: number, fee: number): Promise<BuiltTx> {
  return { ...(await walletChild(node, parent.hex, vout, fee)), fee };
}

async function emptyMempool(): Promise<void> {
  while ((await node.rpc.call<{ size: number }>('getmempoolinfo')).size > 0) await node.mine(1);
}

for (const engine of testDatabases()) {
  describe(`status figures and private relatives (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let base: string;

    before(async () => {
      db = await engine.open();
      t = await startTestApp(node, db, { blockPolicy: BLOCK_POLICY });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await t?.close();
      await db?.close();
      await emptyMempool();
    });

    /** The three public answers for `txid`: status-check, the Slipstream-compatible status, and the status stream's first frame. */
    async function answers(txid: string): Promise<{ check: Answer; compatible: CompatibleAnswer; streamed: StatusResponse }> {
      const check = await get<Answer>(t.app, `/rest-api/status-check?tx_id=${txid}`);
      assert.equal(check.statusCode, 200, JSON.stringify(check.body));
      const compatible = await get<CompatibleAnswer>(t.app, `/api/transactions/status?tx_id=${txid}`);
      assert.equal(compatible.statusCode, 200, JSON.stringify(compatible.body));
      const stream = await openEventStream(`${base}/rest-api/status-stream?tx_id=${txid}`);
      try {
        const frame = await stream.waitFor(isStatus);
        return { check: check.body, compatible: compatible.body, streamed: JSON.parse((frame as { data: string }).data) as StatusResponse };
      } finally {
        stream.close();
      }
    }

    /** What a stranger could compute a relative's fee or size from: the functional rate and every figure of the advice. */
    const figures = (a: { functional_rate: number | null; bump?: unknown }) => ({ functional_rate: a.functional_rate, bump: a.bump ?? null });
    const compatibleFigures = (a: CompatibleAnswer) => ({ functional_rate: a.functional_rate, bump: a.bump_advice });

    test('a private child, a prioritisation: the figures stay the portal\'s own; a child submitted here lifts its parent', { timeout: 300_000 }, async () => {
      await emptyMempool();
      // Three parents at 3 sat/vB, submitted while the mempool is empty (the portal's minimum is low).
      const parents: BuiltTx[] = [];
      for (let k = 0; k < 3; k++) {
        const tx = await node.buildTx({ feeRate: 3 });
        const res = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
        assert.equal(res.body.status, 'success', res.body.message);
        parents.push(tx);
      }
      const [parent, prioritised, portalParent] = parents as [BuiltTx, BuiltTx, BuiltTx];
      // Then the market: transactions of one shape at one rate, more than a projected block of them, straight to the node.
      for (let k = 0; k < FILLERS; k++) {
        const filler = await node.buildTx({ feeRate: FILLER_RATE });
        await node.rpc.call('sendrawtransaction', [filler.hex]);
      }
      await t.records.idle();
      const view = await t.mempool.view();
      assert.equal(view.nextBlockFull, true, `block 0: ${JSON.stringify(view.blocks[0])}`);
      assert.equal(view.marketRate, FILLER_RATE);

      const first = await answers(parent.txid);
      assert.ok(first.check.transaction.position.block! > 0, `behind the next block: block ${first.check.transaction.position.block}`);
      assert.equal(first.check.functional_rate, parent.fee / parent.vsize);
      assert.ok(first.check.bump?.cpfp && first.check.bump.rbf, `advice: ${JSON.stringify(first.check.bump)}`);
      assert.deepEqual(figures(first.streamed), figures(first.check));
      assert.deepEqual(compatibleFigures(first.compatible), figures(first.check));

      // The repro: a child the portal never saw, paying 0.05 BTC from the parent's change, straight to the node.
      const child = await childPaying(parent, changeVout(parent.hex), PRIVATE_CHILD_FEE);
      assert.equal(await node.rpc.call('sendrawtransaction', [child.hex, 0]), child.txid);
      const lifted = await answers(parent.txid);
      // The truth of where the pool's template puts it: the block number, and nothing to size the child by.
      assert.deepEqual(lifted.check.transaction.position, { block: 0, vsize: null });
      assert.equal(lifted.check.market_rate, first.check.market_rate, 'the rate to beat did not move (the setup)');
      for (const answer of [lifted.check, lifted.streamed]) assert.deepEqual(figures(answer), figures(first.check));
      assert.deepEqual(compatibleFigures(lifted.compatible), figures(first.check));
      assert.equal(lifted.compatible.projected_block, 0);

      // The pool prioritises another parent: its modified fee is the pool's business, not its figures.
      const before = await answers(prioritised.txid);
      assert.ok(before.check.transaction.position.block! > 0);
      await node.rpc.call('prioritisetransaction', [prioritised.txid, 0, 500]);
      const after = await answers(prioritised.txid);
      assert.equal(after.check.transaction.position.block, before.check.transaction.position.block, 'still behind: (423 + 500) / 141 is below the rate to beat');
      for (const answer of [after.check, after.streamed]) assert.deepEqual(figures(answer), figures(before.check));
      assert.deepEqual(compatibleFigures(after.compatible), figures(before.check));
      assert.equal(after.check.functional_rate, prioritised.fee / prioritised.vsize);

      // A child submitted here: the portal's own, so child pays for parent shows, to the exact package rate.
      const portalChild = await childPaying(portalParent, changeVout(portalParent.hex), PORTAL_CHILD_FEE);
      const sent = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: portalChild.hex });
      assert.equal(sent.body.status, 'success', sent.body.message);
      await t.records.idle();
      const paidFor = await answers(portalParent.txid);
      const packageRate = (portalParent.fee + portalChild.fee) / (portalParent.vsize + portalChild.vsize);
      assert.equal(paidFor.check.functional_rate, packageRate);
      assert.equal(paidFor.streamed.functional_rate, packageRate);
      assert.equal(paidFor.compatible.functional_rate, packageRate);
      assert.equal(paidFor.check.transaction.position.block, 0);
      assert.equal(typeof paidFor.check.transaction.position.vsize, 'number', 'every relative is the portal\'s: the depth too');
      assert.equal(paidFor.check.bump, null);
    });

    test('a status page polling: the engine answers, with one more query (which relatives are the portal\'s) only for a transaction that has some', async () => {
      await emptyMempool();
      const submit = async (tx: BuiltTx) => {
        const res = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
        assert.equal(res.body.status, 'success', res.body.message);
      };
      const lone = await node.buildTx({ feeRate: 5 });
      await submit(lone);
      const parent = await node.buildTx({ feeRate: 5 });
      await submit(parent);
      const child = await node.buildChild({ parentHex: parent.hex, vout: changeVout(parent.hex), feeRate: 5 });
      await node.rpc.call('sendrawtransaction', [child.hex]);
      await t.records.idle();

      const polled = async (txid: string) => {
        const trace: string[] = [];
        const service = createStatusService({ db: recording(db, 'db', trace, txid), rpc: recording(t.rpc, 'rpc', trace, txid), mempool: t.mempool, log: quietLog, portalTxids: ASK_THE_DATABASE });
        await service.check(txid); // the first answer learns its size
        trace.length = 0;
        const answer = await service.check(txid);
        assert.equal(answer.state, 'in_mempool');
        return { queries: trace.filter((call) => call.startsWith('db.')), nodeCalls: trace.filter((call) => call.startsWith('rpc.')) };
      };
      const alone = await polled(lone.txid);
      const withChild = await polled(parent.txid);
      assert.deepEqual([alone.nodeCalls, withChild.nodeCalls], [[], []], 'no node call');
      assert.equal(withChild.queries.length, alone.queries.length + 1, `alone: ${alone.queries.join(' ')}; with a child: ${withChild.queries.join(' ')}`);
      assert.ok(withChild.queries.some((call) => call.includes(child.txid)), 'the one more: whether the child is the portal\'s');
    });
  });
}
