import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { FEE_TOO_LOW_MESSAGE, MAINTENANCE_MESSAGE, MISSING_INPUTS_MESSAGE } from '../src/modules/submission/submission.service.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, startTestApp, withoutReceipt, type TestApp } from './helpers/test-app.ts';
import { lockedChildOf } from './helpers/signed-spends.ts';

/**
 * The public submission API end to end: a real regtest node decides, a real
 * Postgres engine records. Runs once per database engine available.
 */

interface SubmitBody {
  status: string;
  message: string;
  notice?: string;
}

let node: TestNode;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(60);
});

after(async () => {
  await node?.stop();
});

for (const engine of testDatabases()) {
  describe(`public submission API (${engine.name})`, () => {
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

    const submissions = async (txid: string) => {
      await t.records.idle();
      return (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM tx_submissions WHERE txid = $1 AND status = 'accepted'", [txid])).rows[0]!.n;
    };
    const failures = async (txid: string) =>
      (await db.query<{ status: string; errors: string[] }>('SELECT status, errors FROM failed_txs WHERE txid = $1', [txid])).rows;

    test('getinfo reports the chain height, network and the current minimum fee rate', async () => {
      const res = await get<{ block_height: number; network: string; fee_rate: number }>(t.app, '/rest-api/getinfo');
      assert.equal(res.statusCode, 200);
      assert.equal(res.body.network, 'regtest');
      assert.equal(res.body.block_height, await node.rpc.call<number>('getblockcount'));
      // An empty regtest mempool prices at the relay minimum, so the floor setting (2 sat/vB) rules.
      assert.equal(res.body.fee_rate, 2);
    });

    test('a standard transaction is accepted into the mempool and recorded with its pricing', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.deepEqual(withoutReceipt(res.body), { status: 'success', message: tx.txid });
      const entry = await node.rpc.call<{ vsize: number }>('getmempoolentry', [tx.txid]);
      assert.equal(entry.vsize, tx.vsize);
      // The row is written as pending while the node validates, and marked accepted just after the answer.
      await t.records.idle();
      const { rows } = await db.query<{ fee: number; vsize: number; fee_rate: number; status: string }>(
        'SELECT fee, vsize, fee_rate, status FROM tx_submissions WHERE txid = $1',
        [tx.txid],
      );
      assert.deepEqual(rows[0], { fee: tx.fee, vsize: tx.vsize, fee_rate: tx.fee / tx.vsize, status: 'accepted' });
    });

    test('surrounding whitespace is trimmed', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: `  \n${tx.hex}\t ` });
      assert.equal(res.body.message, tx.txid);
    });

    test('an accepted submission closes the open failure row of the same transaction', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      await db.query(
        "INSERT INTO failed_txs (txid, tx_hex, submission_type, status, errors) VALUES ($1, $2, 'tx', 'Failed', ARRAY['node unreachable'])",
        [tx.txid, tx.hex],
      );
      assert.equal((await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex })).body.status, 'success');
      // Resolution is written after the answer, off the submit path: wait for it, bounded.
      const deadline = Date.now() + 5_000;
      let status = '';
      while (Date.now() < deadline) {
        status = (await failures(tx.txid))[0]?.status ?? '';
        if (status === 'Resolved') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(status, 'Resolved');
    });

    test('submitting the same transaction twice answers success both times and records it once', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const first = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      const second = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.equal(first.body.status, 'success');
      // Each answer has a receipt of its own (signed when it was answered); the rest is the same.
      assert.deepEqual(withoutReceipt(second.body), withoutReceipt(first.body));
      assert.equal(await submissions(tx.txid), 1);
    });

    test('two simultaneous submissions of one transaction both succeed and record it once', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const [a, b] = await Promise.all([
        post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex }),
        post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex }),
      ]);
      assert.deepEqual([a.body.status, b.body.status], ['success', 'success']);
      assert.equal(await submissions(tx.txid), 1);
      assert.ok((await node.rpc.call<string[]>('getrawmempool')).includes(tx.txid));
    });

    test('a refused copy and the valid copy of one transaction at once: the valid one is recorded, with its own witness', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const decoded = decodeTxHex(tx.hex);
      const sig = decoded.inputs[0]!.witness[0]!;
      // Same txid (the witness is not part of it), a signature the node refuses.
      const forged = encodeTxHex({
        ...decoded,
        inputs: decoded.inputs.map((input) => ({ ...input, witness: [sig.slice(0, 20) + (sig[20] === '0' ? '1' : '0') + sig.slice(21), ...input.witness.slice(1)] })),
      });
      for (let round = 0; round < 3; round++) {
        // Either order of arrival; the second round finds the transaction already accepted.
        const [bad, good] = await Promise.all([
          post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: forged }),
          post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex }),
        ]);
        assert.equal(good.body.status, 'success', `round ${round}`);
        assert.ok(bad.statusCode === 422 || bad.body.status === 'success', 'the forged copy is refused, or answered as the transaction already in the mempool');
        await t.records.idle();
        const { rows } = await db.query<{ status: string; wtxid: string }>('SELECT status, wtxid FROM tx_submissions WHERE txid = $1', [tx.txid]);
        assert.deepEqual(rows, [{ status: 'accepted', wtxid: decoded.wtxid }], `round ${round}`);
      }
    });

    test('a recorded transaction that left the mempool is sent again, not answered from the record', async () => {
      const original = await node.buildTx({ feeRate: 3 });
      assert.equal((await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: original.hex })).body.status, 'success');
      // Replaced behind the portal's back, straight on the node.
      const replacement = await node.buildReplacement(original.hex, 12);
      await node.rpc.call('sendrawtransaction', [replacement.hex]);
      const again = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: original.hex });
      assert.equal(again.statusCode, 422, 'the node refuses it now, and the user is told so');
      assert.match(again.body.message, /insufficient fee|conflict/);
    });

    test('outputs worth more than the inputs get the node\'s own reason, explained', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const decoded = decodeTxHex(tx.hex);
      const inflated = encodeTxHex({ ...decoded, outputs: decoded.outputs.map((o, i) => (i === 0 ? { ...o, value: o.value + 100_000_000 } : o)) });
      const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: inflated });
      assert.equal(res.statusCode, 422);
      assert.match(res.body.message, /^The outputs are worth more than the inputs.* \(node: bad-txns-in-belowout.*\)$/);
    });

    test('a package the node takes only in part records the members it took', async () => {
      const parent = await node.buildTx({ feeRate: 3 });
      // A child the node refuses after it took the parent: signed, but locked until a later block (non-final).
      const child = await lockedChildOf(node, parent.hex);
      const broken = child.hex;
      const res = await post<{ status: string; message: string; result: { package_msg: string } }>(t.app, '/rest-api/submit-package', { tx_hexes: [parent.hex, broken] });
      assert.equal(res.statusCode, 422);
      assert.notEqual(res.body.result.package_msg, 'success');
      const mempool = await node.rpc.call<string[]>('getrawmempool');
      assert.ok(mempool.includes(parent.txid), 'the parent is in the mempool');
      assert.ok(!mempool.includes(child.txid));
      const { rows } = await db.query<{ txids: string[] }>('SELECT txids FROM package_submissions WHERE $1 = ANY(txids)', [parent.txid]);
      assert.deepEqual(rows.map((r) => r.txids), [[parent.txid]]);
    });

    test('sigop-heavy transactions are priced by the node\'s sigop-adjusted virtual size', async () => {
      // Outputs of 34 × OP_CHECKMULTISIG: 680 legacy sigops each, so the node
      // sizes the transaction by sigops (×20 bytes), not by its bytes.
      const sigopHeavy = async (feeSats: number) => {
        const unspent = await node.wallet.call<Array<{ txid: string; vout: number; amount: number; desc: string; spendable: boolean }>>('listunspent', [1]);
        const coin = unspent.find((u) => u.spendable && u.desc.startsWith('wpkh(') && u.amount >= 0.01)!;
        await node.wallet.call('lockunspent', [false, [{ txid: coin.txid, vout: coin.vout }], true]);
        const change = (await node.wallet.call<{ scriptPubKey: string }>('getaddressinfo', [await node.address('bech32')])).scriptPubKey;
        const outputs = Array.from({ length: 4 }, () => ({ value: 1_000, scriptPubKey: 'ae'.repeat(34) }));
        const unsigned = encodeTxHex({
          version: 2,
          locktime: 0,
          inputs: [{ txid: coin.txid, vout: coin.vout, scriptSig: '', sequence: 0xfffffffd }],
          outputs: [...outputs, { value: Math.round(coin.amount * 1e8) - 4_000 - feeSats, scriptPubKey: change }],
        });
        return (await node.wallet.call<{ hex: string }>('signrawtransactionwithwallet', [unsigned])).hex;
      };

      const cheap = await sigopHeavy(30_000); // ~100 sat/vB by bytes, ~0.55 sat/vB by sigops
      const verdict = await node.rpc.call<Array<{ allowed: boolean; vsize: number }>>('testmempoolaccept', [[cheap]]);
      assert.equal(verdict[0]!.allowed, true, 'the node alone would take it');
      const parsed = await post<{ transactions: Array<{ vsize: number; weight: number; meets_minimum_fee: boolean }> }>(t.app, '/rest-api/parse-tx', { tx_hexes: [cheap] });
      assert.equal(parsed.body.transactions[0]!.vsize, verdict[0]!.vsize, "the portal's vsize is the node's");
      assert.ok(parsed.body.transactions[0]!.vsize > 10 * Math.ceil(parsed.body.transactions[0]!.weight / 4));
      assert.equal(parsed.body.transactions[0]!.meets_minimum_fee, false);
      assert.equal((await post(t.app, '/rest-api/submit-tx', { tx_hex: cheap })).statusCode, 422);

      const paying = await sigopHeavy(150_000); // ~2.8 sat/vB by sigops
      const accepted = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: paying });
      assert.equal(accepted.body.status, 'success');
      const entry = await node.rpc.call<{ vsize: number }>('getmempoolentry', [accepted.body.message]);
      const { rows } = await db.query<{ vsize: number }>('SELECT vsize FROM tx_submissions WHERE txid = $1', [accepted.body.message]);
      assert.equal(rows[0]!.vsize, entry.vsize);
    });

    test('a transaction below the minimum is refused with a plain message that discloses no formula', async () => {
      const tx = await node.buildTx({ feeRate: 1.5 });
      const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.body, { status: 'error', message: FEE_TOO_LOW_MESSAGE });
      await assert.rejects(node.rpc.call('getmempoolentry', [tx.txid]), /not in mempool/i);
      // A retry would be refused the same way, so nothing is kept for one.
      assert.deepEqual(await failures(tx.txid), []);
      assert.equal(await submissions(tx.txid), 0);
    });

    test('replace-by-fee: a higher fee replaces, a lower one is refused with the node\'s reason', async () => {
      const original = await node.buildTx({ feeRate: 3 });
      assert.equal((await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: original.hex })).body.status, 'success');

      const cheaper = await node.buildReplacement(original.hex, 2.5);
      const refused = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: cheaper.hex });
      assert.equal(refused.statusCode, 422);
      assert.match(refused.body.message, /insufficient fee/);
      // Its pending row, written while the node was deciding, was taken back.
      await t.records.idle();
      assert.equal((await db.query('SELECT 1 FROM tx_submissions WHERE txid = $1', [cheaper.txid])).rows.length, 0);

      const richer = await node.buildReplacement(original.hex, 10);
      const accepted = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: richer.hex });
      assert.deepEqual(withoutReceipt(accepted.body), { status: 'success', message: richer.txid });
      const mempool = await node.rpc.call<string[]>('getrawmempool');
      assert.ok(mempool.includes(richer.txid));
      assert.ok(!mempool.includes(original.txid));
    });

    test('child pays for parent: a child submitted alone lifts its parent submitted here before the minimum rose', async () => {
      // The parent was submitted at 3 sat/vB; the minimum is now 6. (A parent the portal did not record is
      // priced as an unknown one: the pool's mempool is private, see submission-privacy.test.ts.)
      const parent = await node.buildTx({ feeRate: 3 });
      assert.equal((await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: parent.hex })).body.status, 'success');
      await t.records.idle();
      await t.setSetting('fee_rate_floor', '6');
      try {
        const lazyChild = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 7 });
        const refused = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: lazyChild.hex });
        assert.equal(refused.statusCode, 422, 'own rate clears but the package with the parent does not');
        assert.equal(refused.body.message, FEE_TOO_LOW_MESSAGE);

        const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 12 });
        assert.ok((parent.fee + child.fee) / (parent.vsize + child.vsize) >= 6, 'the package clears the minimum');
        const accepted = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: child.hex });
        assert.deepEqual(withoutReceipt(accepted.body), { status: 'success', message: child.txid });
        const entry = await node.rpc.call<{ ancestorcount: number }>('getmempoolentry', [child.txid]);
        assert.equal(entry.ancestorcount, 2);
      } finally {
        await t.setSetting('fee_rate_floor', '2');
      }
    });

    test('a low-fee child does not ride on a high-fee parent', async () => {
      const parent = await node.buildTx({ feeRate: 20 });
      assert.equal((await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: parent.hex })).body.status, 'success');
      await t.records.idle();
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 1.2 });
      const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: child.hex });
      assert.equal(res.statusCode, 422);
      assert.equal(res.body.message, FEE_TOO_LOW_MESSAGE);
    });

    test('a package whose members all clear the minimum is accepted', async () => {
      const parent = await node.buildTx({ feeRate: 3 });
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 3 });
      const res = await post<{ status: string; result: { package_msg: string; 'tx-results': Record<string, { txid: string; error?: string }> } }>(
        t.app,
        '/rest-api/submit-package',
        { tx_hexes: [parent.hex, child.hex] },
      );
      assert.equal(res.statusCode, 200);
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.result.package_msg, 'success');
      assert.deepEqual(Object.values(res.body.result['tx-results']).map((r) => r.txid).sort(), [parent.txid, child.txid].sort());
      const { rows } = await db.query<{ txids: string[]; total_fee: number }>('SELECT txids, total_fee FROM package_submissions WHERE $1 = ANY(txids)', [child.txid]);
      assert.deepEqual(rows[0], { txids: [parent.txid, child.txid], total_fee: parent.fee + child.fee });
    });

    test('a package whose parent alone is below the minimum: taken when its child pays for both, refused when it does not', async () => {
      // Child pays for parent in a package (package-cpfp.ts): (parent fee + child fee) / (their vsizes) against the minimum.
      const parent = await node.buildTx({ feeRate: 1 });
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 50 });
      const res = await post<SubmitBody>(t.app, '/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex] });
      assert.equal(res.statusCode, 200);
      const mempool = await node.rpc.call<string[]>('getrawmempool');
      assert.ok(mempool.includes(parent.txid) && mempool.includes(child.txid));

      const poor = await node.buildTx({ feeRate: 1 });
      const stingy = await node.buildChild({ parentHex: poor.hex, vout: 0, feeRate: 2.5 });
      const refused = await post<SubmitBody>(t.app, '/rest-api/submit-package', { tx_hexes: [poor.hex, stingy.hex] });
      assert.equal(refused.statusCode, 422);
      assert.match(refused.body.message, /^Transaction 1 of the package pays too low a fee/);
      const after = await node.rpc.call<string[]>('getrawmempool');
      assert.ok(!after.includes(poor.txid) && !after.includes(stingy.txid));
    });

    test('bad hex is refused before the node is asked, each with its own message', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const cases: Array<[string, RegExp]> = [
        ['', /empty/i],
        ['   ', /empty/i],
        ['zz' + tx.hex.slice(2), /not hexadecimal/i],
        [tx.hex.slice(0, -1), /odd number/i],
        [tx.hex.slice(0, -20), /truncated/i],
        [tx.hex + '00', /1 unexpected byte after its end/i],
      ];
      for (const [hex, message] of cases) {
        const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: hex });
        assert.equal(res.statusCode, 400, `status for ${hex.slice(0, 12)}…`);
        assert.equal(res.body.status, 'error');
        assert.match(res.body.message, message);
      }
    });

    test('spending outputs the node does not know is refused with the node\'s own reason', async () => {
      const parent = await node.buildTx({ feeRate: 3 });
      const orphan = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
      const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: orphan.hex });
      assert.equal(res.statusCode, 422);
      assert.equal(res.body.message, MISSING_INPUTS_MESSAGE);
      assert.match(res.body.message, /\(node: missing-inputs\)$/);
      assert.deepEqual(await failures(orphan.txid), []);
    });

    test('unknown fields are refused, not ignored', async () => {
      const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: '00', fee_override: 1 });
      assert.equal(res.statusCode, 400);
      assert.match(res.body.message, /Unknown field 'fee_override'/);
    });

    test('parse-tx decodes, prices and judges each item without submitting', async () => {
      const good = await node.buildTx({ feeRate: 3 });
      const cheap = await node.buildTx({ feeRate: 1.5 });
      const res = await post<{ status: string; transactions: Array<Record<string, unknown>> }>(t.app, '/rest-api/parse-tx', {
        tx_hexes: [good.hex, ' ', cheap.hex, 'nothex'],
      });
      assert.equal(res.statusCode, 200);
      const [a, b, c] = res.body.transactions;
      assert.equal(res.body.transactions.length, 3, 'blank items are dropped');
      assert.equal(a!.txid, good.txid);
      assert.equal(a!.fee, good.fee);
      assert.equal(a!.vsize, good.vsize);
      assert.equal(a!.meets_minimum_fee, true);
      assert.equal(b!.meets_minimum_fee, false);
      assert.equal(c!.status, 'error');
      assert.equal(res.body.status, 'error');
      const mempool = await node.rpc.call<string[]>('getrawmempool');
      assert.ok(!mempool.includes(good.txid), 'parsing never submits');
    });

    test('parse-tx judges two copies of one transaction with different witnesses each by its own size', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const decoded = decodeTxHex(tx.hex);
      // Same txid (the witness is not part of it), another wtxid: 1,000 more witness bytes, 250 more vB.
      const padded = encodeTxHex({ ...decoded, inputs: decoded.inputs.map((input, i) => (i === 0 ? { ...input, witness: ['ab'.repeat(1_000), ...input.witness] } : input)) });
      const other = decodeTxHex(padded);
      assert.equal(other.txid, tx.txid);
      assert.notEqual(other.wtxid, decoded.wtxid);
      type Parsed = { txid: string; wtxid: string; vsize: number; weight: number; fee: number; fee_rate: number; meets_minimum_fee: boolean };
      for (const order of [[tx.hex, padded], [padded, tx.hex]]) {
        const res = await post<{ transactions: Parsed[] }>(t.app, '/rest-api/parse-tx', { tx_hexes: order });
        assert.equal(res.statusCode, 200);
        const byWtxid = new Map(res.body.transactions.map((p) => [p.wtxid, p]));
        const plain = byWtxid.get(decoded.wtxid)!;
        const heavy = byWtxid.get(other.wtxid)!;
        assert.deepEqual(res.body.transactions.map((p) => p.wtxid), order.map((hex) => decodeTxHex(hex).wtxid), 'in the order given');
        assert.equal(plain.vsize, tx.vsize, 'the plain copy keeps its own vsize');
        assert.equal(heavy.vsize, Math.ceil(other.weight / 4), 'the padded copy has its own');
        assert.equal(plain.fee, tx.fee);
        assert.equal(heavy.fee, tx.fee);
        assert.equal(plain.fee_rate, tx.fee / tx.vsize);
        assert.equal(heavy.fee_rate, tx.fee / heavy.vsize);
        // 3 sat/vB clears the 2 sat/vB minimum; the same fee over 250 more vB does not.
        assert.equal(plain.meets_minimum_fee, true);
        assert.equal(heavy.meets_minimum_fee, false);
      }
    });

    test('maintenance mode refuses submissions with a clear 503 and leaves the mempool alone', async () => {
      await t.setSetting('maintenance_mode', 'true');
      try {
        const tx = await node.buildTx({ feeRate: 3 });
        const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
        assert.equal(res.statusCode, 503);
        assert.equal(res.body.message, MAINTENANCE_MESSAGE);
        await assert.rejects(node.rpc.call('getmempoolentry', [tx.txid]));
        // The public pages learn of it from site-info, with the contact line beside it.
        const site = await get<{ maintenance: boolean; contact_email: string; company_url: string; email_notifications: boolean }>(t.app, '/rest-api/site-info');
        // email_notifications: this test app has no SMTP server, so the status page offers no email box.
        assert.deepEqual(site.body, { maintenance: true, contact_email: 'blocks@example.com', company_url: 'https://example.com', email_notifications: false });
      } finally {
        await t.setSetting('maintenance_mode', 'false');
      }
      assert.equal((await get<{ maintenance: boolean }>(t.app, '/rest-api/site-info')).body.maintenance, false);
    });

    test('a valid client code lowers the minimum; an inactive or expired one gives no discount and says why', async () => {
      // Make the market part of the price dominate, so a discount can matter.
      await t.setSetting('fee_rate_floor', '0');
      const relay = (await get<{ fee_rate: number }>(t.app, '/rest-api/getinfo')).body.fee_rate / 2;
      await t.setSetting('slipstream_multiplier', String(4 / relay));
      try {
        const info = await get<{ fee_rate: number }>(t.app, '/rest-api/getinfo');
        assert.ok(Math.abs(info.body.fee_rate - 4) < 1e-9, `minimum is 4 sat/vB, got ${info.body.fee_rate}`);
        const { rows } = await db.query<{ id: number }>("INSERT INTO clients (name) VALUES ($1) RETURNING id", [`Client ${engine.name}`]);
        const clientId = rows[0]!.id;
        const code = async (code: string, status: boolean, from: string, until: string) =>
          db.query(
            `INSERT INTO discount_codes (code, client_id, description, discount_percentage, valid_from, valid_until, status)
             VALUES ($1, $2, 'test', 50, now() + $3::interval, now() + $4::interval, $5)`,
            [code, clientId, from, until, status],
          );
        await code(`ACTIVE-${engine.name}`, true, '-1 day', '1 day');
        await code(`OFF-${engine.name}`, false, '-1 day', '1 day');
        await code(`OLD-${engine.name}`, true, '-3 days', '-1 day');

        const plain = await node.buildTx({ feeRate: 3 });
        assert.equal((await post(t.app, '/rest-api/submit-tx', { tx_hex: plain.hex })).statusCode, 422);
        for (const [c, why] of [[`OFF-${engine.name}`, 'is inactive'], [`OLD-${engine.name}`, 'has expired'], ['NOPE', 'is not recognised']]) {
          const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: plain.hex, client_code: c });
          assert.equal(res.statusCode, 422, `code ${c}`);
          assert.equal(res.body.notice, `Client code ${c} ${why}; no discount was applied.`);
        }
        const ok = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: plain.hex, client_code: `ACTIVE-${engine.name}` });
        assert.deepEqual(withoutReceipt(ok.body), { status: 'success', message: plain.txid });
        const recorded = await db.query<{ client_code: string; discount_code_id: number | null }>(
          'SELECT client_code, discount_code_id FROM tx_submissions WHERE txid = $1',
          [plain.txid],
        );
        assert.equal(recorded.rows[0]?.client_code, `ACTIVE-${engine.name}`);
        assert.ok(recorded.rows[0]?.discount_code_id);
      } finally {
        await t.setSetting('fee_rate_floor', '2');
        await t.setSetting('slipstream_multiplier', '2');
      }
    });

    test('a client code with surrounding whitespace is the code itself: priced, recorded and audited as such', async () => {
      await t.setSetting('fee_rate_floor', '0');
      const relay = (await get<{ fee_rate: number }>(t.app, '/rest-api/getinfo')).body.fee_rate / 2;
      await t.setSetting('slipstream_multiplier', String(4 / relay));
      try {
        const { rows } = await db.query<{ id: number }>('INSERT INTO clients (name) VALUES ($1) RETURNING id', [`Trim ${engine.name}`]);
        const code = `TRIM-${engine.name}`;
        const { rows: codes } = await db.query<{ id: number }>(
          `INSERT INTO discount_codes (code, client_id, description, discount_percentage, valid_from, valid_until, status)
           VALUES ($1, $2, 'test', 50, now() - interval '1 day', now() + interval '1 day', true) RETURNING id`,
          [code, rows[0]!.id],
        );
        const padded = ` \t${code} \n`;

        // 3 sat/vB: under the 4 sat/vB minimum, over the 2 sat/vB the code's 50% leaves.
        const single = await node.buildTx({ feeRate: 3 });
        const parsed = await post<{ notice?: string; transactions: Array<{ meets_minimum_fee: boolean }> }>(t.app, '/rest-api/parse-tx', { tx_hexes: [single.hex], client_code: padded });
        assert.equal(parsed.body.notice, undefined);
        assert.equal(parsed.body.transactions[0]!.meets_minimum_fee, true);
        assert.deepEqual(withoutReceipt((await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: single.hex, client_code: padded })).body), { status: 'success', message: single.txid });
        await t.records.idle();
        const tx = await db.query<{ client_code: string; discount_code_id: number }>('SELECT client_code, discount_code_id FROM tx_submissions WHERE txid = $1', [single.txid]);
        assert.deepEqual(tx.rows, [{ client_code: code, discount_code_id: codes[0]!.id }]);

        const parent = await node.buildTx({ feeRate: 3 });
        const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 3 });
        const pkg = await post<{ status: string }>(t.app, '/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex], client_code: padded });
        assert.equal(pkg.body.status, 'success', JSON.stringify(pkg.body));
        await t.records.idle();
        const packages = await db.query<{ client_code: string; discount_code_id: number }>('SELECT client_code, discount_code_id FROM package_submissions WHERE $1 = ANY(txids)', [parent.txid]);
        assert.deepEqual(packages.rows, [{ client_code: code, discount_code_id: codes[0]!.id }]);

        // A code of whitespace alone is no code.
        const blank = await node.buildTx({ feeRate: 5 });
        assert.equal((await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: blank.hex, client_code: '   ' })).body.status, 'success');
        await t.records.idle();
        const none = await db.query<{ client_code: string | null }>('SELECT client_code FROM tx_submissions WHERE txid = $1', [blank.txid]);
        assert.deepEqual(none.rows, [{ client_code: null }]);

        await t.audit.flush();
        const audited = await db.query<{ client_code: string }>("SELECT DISTINCT client_code FROM audit_logs WHERE client_code LIKE '%' || $1 || '%'", [code]);
        assert.deepEqual(audited.rows, [{ client_code: code }]);
      } finally {
        await t.setSetting('fee_rate_floor', '2');
        await t.setSetting('slipstream_multiplier', '2');
      }
    });

    test('status-check follows a transaction from the mempool into a block', async () => {
      const tx = await node.buildTx({ feeRate: 4 });
      await post(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      type Status = { state: string; transaction: { fee: number; vsize: number; size: number; weight: number; firstSeen: number; position: { block: number }; status: { confirmed: boolean; block_hash: string | null; block_height: number | null } } };
      const waiting = await get<Status>(t.app, `/rest-api/status-check?tx_id=${tx.txid}`);
      assert.equal(waiting.statusCode, 200);
      assert.equal(waiting.body.state, 'in_mempool');
      assert.equal(waiting.body.transaction.fee, tx.fee);
      assert.equal(waiting.body.transaction.vsize, tx.vsize);
      assert.equal(waiting.body.transaction.weight, tx.weight);
      assert.equal(waiting.body.transaction.position.block, 0);
      assert.equal(waiting.body.transaction.status.confirmed, false);

      const [hash] = await node.mine(1);
      const mined = await get<Status>(t.app, `/rest-api/status-check?tx_id=${tx.txid}`);
      assert.equal(mined.body.state, 'confirmed');
      assert.equal(mined.body.transaction.status.block_hash, hash);
      assert.equal(mined.body.transaction.status.block_height, await node.rpc.call<number>('getblockcount'));
      assert.equal(mined.body.transaction.fee, tx.fee);
    });

    test('status-check answers a clear not-found for an unknown txid and 400 for a malformed one', async () => {
      const missing = await get<SubmitBody>(t.app, `/rest-api/status-check?tx_id=${'ab'.repeat(32)}`);
      assert.equal(missing.statusCode, 404);
      assert.match(missing.body.message, /not found/i);
      const malformed = await get<SubmitBody>(t.app, '/rest-api/status-check?tx_id=xyz');
      assert.equal(malformed.statusCode, 400);
    });

    test('a transaction over the 400,000 WU standard limit is accepted, and audited with its hex truncated', async () => {
      const tx = await node.buildOversize({ feeRate: 3 });
      assert.ok(tx.weight > 400_000);
      const res = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex, client_code: 'AUDIT-ME' });
      assert.equal(res.body.message, tx.txid);
      assert.equal(res.body.notice, 'Client code AUDIT-ME is not recognised; no discount was applied.');
      await t.audit.flush();
      const { rows } = await db.query<{ endpoint: string; http_method: string; client_code: string; request_payload: string; is_success: boolean; source_type: string; response_time_ms: number }>(
        "SELECT endpoint, http_method, client_code, request_payload, is_success, source_type, response_time_ms FROM audit_logs WHERE client_code = 'AUDIT-ME'",
      );
      assert.equal(rows.length, 1);
      const row = rows[0]!;
      assert.equal(row.endpoint, '/rest-api/submit-tx');
      assert.equal(row.http_method, 'POST');
      assert.equal(row.source_type, 'External');
      assert.ok(row.request_payload.length < 6_000, `stored ${row.request_payload.length} chars`);
      assert.ok(row.request_payload.includes(`[truncated, ${tx.hex.length} chars]`));
      assert.ok(row.response_time_ms > 0);
    });
  });
}
