import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { DEFAULT_BYTES_PER_SIGOP } from '@slipstream/mempool-engine/bitcoin/virtual-size';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import type { ApiError } from '../src/http/errors.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createEngineMarketSource } from '../src/modules/pricing/market-rate.ts';
import { createSubmissionService } from '../src/modules/submission/submission.service.ts';
import { invalidSignatureMessage } from '../src/modules/submission/submission-rules.ts';
import { startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { post, quietLog, startTestApp, type TestApp } from './helpers/test-app.ts';
import { recording } from './helpers/call-trace.ts';

/**
 * The pool's mempool is private until mined (docs/behaviour.md#private-until-mined), and
 * status-check answers only for transactions the portal recorded. The
 * pricing and submission endpoints must not answer for the others either:
 * - parse-tx and submit-tx price an input spending a transaction the portal
 *   did not record exactly as one spending an outpoint nobody knows (no fee,
 *   no functional rate, the same answer), while the child of a portal
 *   submission is still priced with its parent (child pays for parent);
 * - a refusal because of a conflicting spend the portal did not record says
 *   so in one generic sentence, with no fee rate or txid of the private
 *   transaction; the node's own words stay in the audit trail for staff, and
 *   reach a user replacing their own submission as before.
 */

interface ParsedItem {
  status: string;
  message: string;
  txid: string;
  wtxid: string;
  fee: number | null;
  fee_rate: number | null;
  functional_rate: number | null;
  meets_minimum_fee: boolean | null;
  inputs: Array<{ txid: string; vout: number; sequence: number }>;
}

interface ParseBody {
  status: string;
  message: string;
  transactions: ParsedItem[];
}

interface SubmitBody {
  status: string;
  message: string;
  result?: { package_msg: string; 'tx-results': Record<string, { txid: string; error?: string }> };
}

/** P2WSH of OP_TRUE: a standard output no wallet watches. */
const OP_TRUE_P2WSH = `0020${createHash('sha256').update(Buffer.from([0x51])).digest('hex')}`;
/** A witness of the right shape (signature, public key) that signs nothing. */
const FAKE_WITNESS = [`30440220${'11'.repeat(32)}0220${'22'.repeat(32)}01`, `02${'33'.repeat(32)}`];
/** The vsize of a one-input, one-output spend with FAKE_WITNESS (P2WPKH-like), as the node measures it. */
const SPEND_VSIZE = 110;

/** A spend of `txid:vout` anyone can write, with no key: it pays `value - feeRate × SPEND_VSIZE` to OP_TRUE. */
function spendOf(txid: string, vout: number, value: number, feeRate: number): string {
  return encodeTxHex({
    version: 2,
    locktime: 0,
    inputs: [{ txid, vout, scriptSig: '', sequence: 0xffff_fffd, witness: FAKE_WITNESS }],
    outputs: [{ value: value - Math.ceil(feeRate * SPEND_VSIZE), scriptPubKey: OP_TRUE_P2WSH }],
  });
}

/** The txid of a transaction nobody has: `tx` with another locktime. */
const strangerOf = (tx: BuiltTx, locktime: number) => decodeTxHex(encodeTxHex({ ...decodeTxHex(tx.hex), locktime })).txid;

/** A parse answer with what depends on the transaction's own bytes (its ids and the outpoints it names) taken out. */
function withoutIds(body: ParseBody) {
  return { ...body, transactions: body.transactions.map(({ txid: _t, wtxid: _w, inputs, ...rest }) => ({ ...rest, inputs: inputs.map(({ txid: _i, ...i }) => i) })) };
}

/** Any fee rate figure (BTC/kvB or sat/vB), fee amount or txid in a message. */
const FIGURES = /\d+\.\d+|\d{3,}|[0-9a-f]{64}/;

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(40);
});
after(async () => node?.stop());

for (const engine of testDatabases()) {
  describe(`the private mempool through parse-tx and submit-tx (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;

    before(async () => {
      db = await engine.open();
      t = await startTestApp(node, db);
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const parse = async (hexes: string[]) => (await post<ParseBody>(t.app, '/rest-api/parse-tx', { tx_hexes: hexes })).body;
    const submit = (hex: string) => post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: hex });
    const coinValue = async (txid: string, vout: number) => btcToSats((await node.rpc.call<{ value: number }>('gettxout', [txid, vout, false])).value);

    test('parse-tx: a spend of a transaction sent straight to the node answers as a spend of an unknown outpoint', async () => {
      const hidden = await node.buildTx({ feeRate: 6 });
      await node.rpc.call('sendrawtransaction', [hidden.hex]);
      const stranger = strangerOf(hidden, 4242);
      const value = decodeTxHex(hidden.hex).outputs[0]!.value;

      const ofHidden = await parse([spendOf(hidden.txid, 0, value, 5)]);
      const ofUnknown = await parse([spendOf(stranger, 0, value, 5)]);
      assert.equal(ofUnknown.transactions[0]!.fee, null);
      assert.equal(ofHidden.transactions[0]!.fee, null, 'the private output\'s value stays private');
      assert.equal(ofHidden.transactions[0]!.functional_rate, null);
      assert.deepEqual(withoutIds(ofHidden), withoutIds(ofUnknown));

      // The same in a package, after a member of its own.
      const first = await node.buildTx({ feeRate: 3 });
      assert.deepEqual(withoutIds(await parse([first.hex, spendOf(hidden.txid, 1, 50_000, 5)])), withoutIds(await parse([first.hex, spendOf(stranger, 1, 50_000, 5)])));
    });

    test('submit-tx: a spend of a transaction sent straight to the node is refused as a spend of an unknown outpoint', async () => {
      const hidden = await node.buildTx({ feeRate: 6 });
      await node.rpc.call('sendrawtransaction', [hidden.hex]);
      const stranger = strangerOf(hidden, 4243);
      const value = decodeTxHex(hidden.hex).outputs[0]!.value;
      // Paying more than the output holds, or a fair fee: the node's checks of amounts never answer for it.
      for (const [spent, rate] of [[value, 5], [value + 100_000, 5], [value, -1]] as const) {
        const ofHidden = await submit(spendOf(hidden.txid, 0, spent, rate));
        const ofUnknown = await submit(spendOf(stranger, 0, spent, rate));
        assert.deepEqual({ statusCode: ofHidden.statusCode, body: ofHidden.body }, { statusCode: ofUnknown.statusCode, body: ofUnknown.body }, `${spent} at ${rate}`);
        assert.equal(ofUnknown.statusCode, 422);
      }
      const pkg = async (txid: string) => (await post<SubmitBody>(t.app, '/rest-api/submit-package', { tx_hexes: [(await node.buildTx({ feeRate: 3 })).hex, spendOf(txid, 0, value, 5)] })).body;
      assert.deepEqual(await pkg(hidden.txid), await pkg(stranger));
    });

    test('for a spend of a private transaction the service does the same work as for a spend of an unknown outpoint', async () => {
      const hidden = await node.buildTx({ feeRate: 6 });
      await node.rpc.call('sendrawtransaction', [hidden.hex]);
      const value = decodeTxHex(hidden.hex).outputs[0]!.value;
      const traces: string[][] = [];
      for (const txid of [hidden.txid, strangerOf(hidden, 4244), hidden.txid]) {
        const trace: string[] = [];
        const spend = spendOf(txid, 0, value, 5);
        // The spend's own txid differs with its parent's; asking whether the spend itself is mined says nothing about the parent.
        const own = { [decodeTxHex(spend).txid]: 'SPEND' };
        const service = createSubmissionService({
          db: recording(db, 'db', trace, txid, own),
          rpc: recording(t.rpc, 'rpc', trace, txid, own),
          market: createEngineMarketSource(t.mempool),
          settings: t.settings,
          records: t.records,
          clock: systemClock,
          log: quietLog,
          bytesPerSigop: DEFAULT_BYTES_PER_SIGOP,
        });
        await service.parse([spend], undefined);
        await assert.rejects(service.submitTx(spend, undefined), (error: ApiError) => error.statusCode === 422);
        traces.push(trace);
      }
      assert.ok(traces[0]!.length > 0);
      assert.deepEqual(traces[0], traces[1], 'the same calls to the database and the node, with the same arguments');
      assert.deepEqual(traces[2], traces[1], 'and the second time too');
      assert.equal(traces[0]!.some((call) => /getmempoolentry|getrawtransaction|testmempoolaccept|sendrawtransaction/.test(call) && call.includes('TXID')), false, 'the node is not asked about it');
    });

    test('child pays for parent still works for a parent the portal recorded: priced with it, judged with it', async () => {
      const parent = await node.buildTx({ feeRate: 3 });
      assert.equal((await submit(parent.hex)).body.status, 'success');
      await t.records.idle();
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 12 });
      const [priced] = (await parse([child.hex])).transactions;
      assert.equal(priced!.fee, child.fee);
      const packageRate = (parent.fee + child.fee) / (parent.vsize + child.vsize);
      assert.ok(Math.abs(priced!.functional_rate! - packageRate) < 1e-9, `functional rate ${priced!.functional_rate}, package ${packageRate}`);
      assert.equal(priced!.meets_minimum_fee, true);
      assert.equal((await submit(child.hex)).body.status, 'success');
    });

    test('the ancestors a child is judged with are the portal\'s: one the node holds privately is not counted', async () => {
      // A private grandparent at 1 sat/vB; its child reached the node as well, and the portal holds it as a failed attempt.
      const grandparent = await node.buildTx({ feeRate: 1 });
      await node.rpc.call('sendrawtransaction', [grandparent.hex]);
      const parent = await node.buildChild({ parentHex: grandparent.hex, vout: 0, feeRate: 4 });
      await node.rpc.call('sendrawtransaction', [parent.hex]);
      await db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors) VALUES ($1, $2, 'Timeout', ARRAY['The node did not answer in time'])`, [parent.txid, parent.hex]);
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 10 });
      const [priced] = (await parse([child.hex])).transactions;
      assert.equal(priced!.fee, child.fee);
      const withParent = (parent.fee + child.fee) / (parent.vsize + child.vsize);
      assert.ok(Math.abs(priced!.functional_rate! - withParent) < 1e-9, `functional rate ${priced!.functional_rate}, with the recorded parent alone ${withParent}`);
    });

    test('submit-tx: an unsigned spend of a coin a private transaction spends gets the answer a coin nobody spends gets, whatever its fee', async () => {
      const hidden = await node.buildTx({ feeRate: 20 });
      await node.rpc.call('sendrawtransaction', [hidden.hex]);
      const coin = decodeTxHex(hidden.hex).inputs[0]!;
      const value = await coinValue(coin.txid, coin.vout);

      // Under the private transaction's rate and over it: the portal checks the (made-up) signature before
      // the node is asked, so the node's conflict checks, which run before its script checks, never answer.
      const under = await submit(spendOf(coin.txid, coin.vout, value, 8));
      const over = await submit(spendOf(coin.txid, coin.vout, value, 60));
      const free = decodeTxHex((await node.buildTx({ feeRate: 3 })).hex).inputs[0]!;
      const unspent = await submit(spendOf(free.txid, free.vout, await coinValue(free.txid, free.vout), 8));
      assert.equal(under.statusCode, 422);
      assert.equal(under.body.message, invalidSignatureMessage(0));
      assert.deepEqual({ statusCode: over.statusCode, body: over.body }, { statusCode: under.statusCode, body: under.body }, 'the fee of the private spend cannot be bisected');
      assert.deepEqual({ statusCode: unspent.statusCode, body: unspent.body }, { statusCode: under.statusCode, body: under.body }, 'nor whether anything spends the coin');
    });

    test('submit-tx: replacing one\'s own submission still gets the node\'s reason; not when the replacement would also evict a private spend of it', async () => {
      const original = await node.buildTx({ feeRate: 3 });
      assert.equal((await submit(original.hex)).body.status, 'success');
      await t.records.idle();
      const cheaper = await node.buildReplacement(original.hex, 2.5);
      const refused = await submit(cheaper.hex);
      assert.equal(refused.statusCode, 422);
      assert.match(refused.body.message, /insufficient fee/);

      // Someone spends its output straight on the node: a replacement would evict that transaction too.
      const hiddenChild = await node.buildChild({ parentHex: original.hex, vout: 0, feeRate: 30 });
      await node.rpc.call('sendrawtransaction', [hiddenChild.hex]);
      const again = await submit((await node.buildReplacement(original.hex, 4)).hex);
      assert.equal(again.statusCode, 422);
      assert.match(again.body.message, /conflicts with a transaction already in the pool's mempool/);
      assert.doesNotMatch(again.body.message, FIGURES);
    });

    test('submit-package: an unsigned member spending what a private transaction spends is refused without a word of the conflict', async () => {
      const hidden = await node.buildTx({ feeRate: 20 });
      await node.rpc.call('sendrawtransaction', [hidden.hex]);
      const coin = decodeTxHex(hidden.hex).inputs[0]!;
      const value = await coinValue(coin.txid, coin.vout);
      const parent = spendOf(coin.txid, coin.vout, value, 8);
      const parentTxid = decodeTxHex(parent).txid;
      const child = spendOf(parentTxid, 0, decodeTxHex(parent).outputs[0]!.value, 8);
      const res = await post<SubmitBody>(t.app, '/rest-api/submit-package', { tx_hexes: [parent, child] });
      assert.equal(res.statusCode, 422);
      const text = JSON.stringify(res.body);
      // Refused by the portal's signature check before the node is asked: nothing of the conflict is said.
      assert.equal(res.body.message, invalidSignatureMessage(0, 0));
      assert.doesNotMatch(text, /insufficient fee|feerate|rejecting replacement|conflicts with/);
      assert.ok(!text.includes(hidden.txid), 'the private transaction is not named');
    });
  });
}
