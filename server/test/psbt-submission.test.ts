import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FEE_TOO_LOW_MESSAGE } from '../src/modules/submission/submission.service.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { post, startTestApp, withoutReceipt, type TestApp } from './helpers/test-app.ts';

/**
 * A PSBT is taken wherever a transaction hex is: parsed, submitted alone or as
 * a package member, priced by our own path, and refused with the node's
 * explanation when it is not fully signed.
 */

let node: TestNode;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(12);
});

after(async () => {
  await node?.stop();
});

/** A wallet-made PSBT paying `feeRate`; signed (not finalized) unless `sign` is false. */
async function walletPsbt(feeRate: number, sign = true): Promise<{ psbt: string; fee: number }> {
  const funded = await node.wallet.call<{ psbt: string; fee: number }>('walletcreatefundedpsbt', [[], [{ [await node.address()]: '0.001' }], 0, { fee_rate: feeRate }]);
  if (!sign) return funded;
  const signed = await node.wallet.call<{ psbt: string }>('walletprocesspsbt', [funded.psbt, true, 'ALL', true, false]);
  return { psbt: signed.psbt, fee: funded.fee };
}

const extracted = async (psbt: string) => {
  const final = await node.rpc.call<{ hex: string }>('finalizepsbt', [psbt, true]);
  return { hex: final.hex, txid: (await node.rpc.call<{ txid: string }>('decoderawtransaction', [final.hex])).txid };
};

interface ParseItem {
  status: string;
  message: string;
  txid?: string;
  fee?: number | null;
  psbt?: { stated_fee: number | null };
}

for (const engine of testDatabases()) {
  describe(`PSBT submissions (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;

    before(async () => {
      // The wallet funds PSBTs from unconfirmed change too: confirm what the other engine's run left in the mempool,
      // which this engine's fresh database has no record of (a spend of it would read as missing inputs).
      await node.mine(1);
      db = await engine.open();
      t = await startTestApp(node, db);
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    test('parse-tx shows a PSBT entry as a PSBT, with the fee it states and the extracted txid', async () => {
      const { psbt, fee } = await walletPsbt(5);
      const { txid } = await extracted(psbt);
      const res = await post<{ transactions: ParseItem[] }>(t.app, '/rest-api/parse-tx', { tx_hexes: [psbt] });
      assert.equal(res.statusCode, 200);
      const [item] = res.body.transactions;
      assert.equal(item!.status, 'success');
      assert.equal(item!.txid, txid);
      assert.deepEqual(item!.psbt, { stated_fee: Math.round(fee * 1e8) });
      assert.equal(item!.fee, Math.round(fee * 1e8), 'our own pricing agrees with what the PSBT states');
      const plain = await node.buildTx({ feeRate: 3 });
      const mixed = await post<{ transactions: ParseItem[] }>(t.app, '/rest-api/parse-tx', { tx_hexes: [plain.hex] });
      assert.equal(mixed.body.transactions[0]!.psbt, undefined, 'a raw hex is not marked as a PSBT');
    });

    test('a signed PSBT submitted through submit-tx is finalized, accepted and recorded under its txid', async () => {
      const { psbt } = await walletPsbt(5);
      const { txid, hex } = await extracted(psbt);
      const res = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: psbt });
      assert.deepEqual(withoutReceipt(res.body), { status: 'success', message: txid });
      assert.equal(await node.rpc.call<string>('getrawtransaction', [txid]), hex);
      await t.records.idle();
      const { rows } = await db.query<{ tx_hex: string }>('SELECT tx_hex FROM tx_submissions WHERE txid = $1', [txid]);
      assert.equal(rows[0]?.tx_hex, hex, 'the record keeps the transaction, not the PSBT');
    });

    test('the binary form in hex works the same', async () => {
      const { psbt } = await walletPsbt(5);
      const { txid } = await extracted(psbt);
      const res = await post<{ message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: Buffer.from(psbt, 'base64').toString('hex') });
      assert.equal(res.body.message, txid);
    });

    test('an unsigned PSBT is refused with the input it lacks a signature for, and nothing is sent', async () => {
      const { psbt } = await walletPsbt(5, false);
      const decoded = await node.rpc.call<{ tx: { txid: string; vin: Array<{ txid: string; vout: number }> } }>('decodepsbt', [psbt]);
      const before = await node.rpc.call<string[]>('getrawmempool');
      const res = await post<{ message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: psbt });
      assert.equal(res.statusCode, 400);
      const input = decoded.tx.vin[0]!;
      assert.ok(res.body.message.includes(`Input 0 (${input.txid}:${input.vout}) lacks a signature`), res.body.message);
      assert.deepEqual(await node.rpc.call<string[]>('getrawmempool'), before);
      const parsed = await post<{ transactions: ParseItem[] }>(t.app, '/rest-api/parse-tx', { tx_hexes: [psbt] });
      assert.equal(parsed.body.transactions[0]!.status, 'error');
      assert.equal(parsed.body.transactions[0]!.message, res.body.message);
    });

    test('a PSBT paying less than the threshold is refused by our pricing like a hex', async () => {
      const { psbt } = await walletPsbt(1);
      const res = await post<{ message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: psbt });
      assert.equal(res.statusCode, 422);
      assert.equal(res.body.message, FEE_TOO_LOW_MESSAGE);
    });

    test('a package may mix a PSBT parent with a hex child; a bad PSBT member is named by its place', async () => {
      const { psbt } = await walletPsbt(5);
      const parent = await extracted(psbt);
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
      const res = await post<{ status: string }>(t.app, '/rest-api/submit-package', { tx_hexes: [psbt, child.hex] });
      assert.equal(res.body.status, 'success', JSON.stringify(res.body));
      assert.ok((await node.rpc.call<string[]>('getrawmempool')).includes(child.txid));

      const unsigned = await walletPsbt(5, false);
      const bad = await post<{ message: string }>(t.app, '/rest-api/submit-package', { tx_hexes: [(await node.buildTx({ feeRate: 3 })).hex, unsigned.psbt] });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body.message, /^Transaction 2 of the package: This PSBT is not fully signed/);
    });

    test('the Slipstream-compatible API takes PSBTs too: a transaction, a package member, and an unsigned one refused by name', async () => {
      const { psbt } = await walletPsbt(5);
      const { txid } = await extracted(psbt);
      const single = await post<{ status: string; message: string }>(t.app, '/api/transactions', { tx_hex: psbt });
      assert.deepEqual(withoutReceipt(single.body), { status: 'success', message: txid });

      const parentPsbt = await walletPsbt(5);
      const parent = await extracted(parentPsbt.psbt);
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
      const pkg = await post<{ status: string }>(t.app, '/api/transactions/packages', { tx_hexes: [parentPsbt.psbt, child.hex] });
      assert.equal(pkg.body.status, 'success', JSON.stringify(pkg.body));

      const unsigned = await walletPsbt(5, false);
      const refused = await post<{ status: string; message: string }>(t.app, '/api/transactions', { tx_hex: unsigned.psbt });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.body.status, 'error');
      assert.match(refused.body.message, /not fully signed, so it was not submitted\. Input 0 \([0-9a-f]{64}:\d+\) lacks a signature/);

      const dry = await post<{ status: string; message: string }>(t.app, '/api/transactions', { tx_hex: (await walletPsbt(5)).psbt, skip_mempool_submission: true });
      assert.equal(dry.body.status, 'success', dry.body.message);
    });
  });
}
