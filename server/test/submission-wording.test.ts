import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { post, startTestApp, withoutReceipt, type TestApp } from './helpers/test-app.ts';
import { fundCoins, signedSpend } from './helpers/signed-spends.ts';

/**
 * What users read when they paste and submit: hex wrapped over lines is
 * taken as the hex it is, a transaction already mined is answered with its
 * block, and the node's reasons for a refusal come in plain words first with
 * the node's code after (src/bitcoin/reject-reasons.ts). A real regtest node
 * decides; a real Postgres engine records.
 */

interface Answer {
  status: string;
  message: string;
  confirmed?: { txid: string; block_height: number; block_hash: string };
  transactions?: Array<{ status: string; message: string; txid?: string; confirmed?: { txid: string; block_height: number; block_hash: string } }>;
  result?: { package_msg: string; 'tx-results': Record<string, { txid?: string; error?: string }> };
}

/** `hex` as a tool that wraps long lines gives it: 64 characters a line, CRLF, and some indentation and tabs. */
const wrapped = (hex: string) => (hex.match(/.{1,64}/g) ?? []).map((line, i) => (i % 3 === 1 ? `\t${line}  ` : line)).join('\r\n');

let node: TestNode;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(30);
});

after(async () => {
  await node?.stop();
});

for (const engine of testDatabases()) {
  describe(`what users read about their transactions (${engine.name})`, () => {
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

    describe('whitespace inside a transaction\'s hex', () => {
      test('a hex wrapped over lines with CR/LF, tabs and spaces is parsed and submitted as the hex itself', async () => {
        const tx = await node.buildTx({ feeRate: 3 });
        const parsed = await post<Answer>(t.app, '/rest-api/parse-tx', { tx_hexes: [wrapped(tx.hex)] });
        assert.equal(parsed.statusCode, 200);
        assert.equal(parsed.body.transactions?.[0]?.txid, tx.txid);
        const res = await post<Answer>(t.app, '/rest-api/submit-tx', { tx_hex: wrapped(tx.hex) });
        assert.deepEqual({ status: res.statusCode, body: withoutReceipt(res.body) }, { status: 200, body: { status: 'success', message: tx.txid } });
        await t.records.idle();
        const { rows } = await db.query<{ tx_hex: string }>('SELECT tx_hex FROM tx_submissions WHERE txid = $1', [tx.txid]);
        assert.equal(rows[0]?.tx_hex, tx.hex, 'recorded without the whitespace');
      });

      test('in a package, commas still separate the members and each one\'s whitespace is removed', async () => {
        const parent = await node.buildTx({ feeRate: 3 });
        const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 3 });
        const parsed = await post<Answer>(t.app, '/rest-api/parse-tx', { tx_hexes: [wrapped(parent.hex), wrapped(child.hex)] });
        assert.deepEqual(parsed.body.transactions?.map((x) => x.txid), [parent.txid, child.txid]);
        const res = await post<Answer>(t.app, '/rest-api/submit-package', { tx_hexes: [wrapped(parent.hex), ` \n${wrapped(child.hex)}\n`] });
        assert.equal(res.statusCode, 200, res.body.message);
        assert.equal(res.body.result?.package_msg, 'success');
      });
    });

    describe('a transaction already mined, pasted again', () => {
      test('the preview and the submission both say which block holds it, not that its inputs are unknown', async () => {
        const tx = await node.buildTx({ feeRate: 3 });
        await node.rpc.call('sendrawtransaction', [tx.hex]);
        const [blockHash] = await node.mine(1);
        const height = await node.rpc.call<number>('getblockcount');
        const expected = `This transaction is already confirmed in block ${height}.`;

        const parsed = await post<Answer>(t.app, '/rest-api/parse-tx', { tx_hexes: [tx.hex] });
        const item = parsed.body.transactions?.[0];
        assert.equal(item?.message, expected);
        assert.deepEqual(item?.confirmed, { txid: tx.txid, block_height: height, block_hash: blockHash });

        const res = await post<Answer>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
        assert.equal(res.statusCode, 422);
        assert.equal(res.body.message, expected);
        assert.doesNotMatch(res.body.message, /txn-already-known|missing/);
        assert.deepEqual(res.body.confirmed, { txid: tx.txid, block_height: height, block_hash: blockHash });
      });

      test('a package holding a mined transaction names the member and its block', async () => {
        const mined = await node.buildTx({ feeRate: 3 });
        await node.rpc.call('sendrawtransaction', [mined.hex]);
        await node.mine(1);
        const height = await node.rpc.call<number>('getblockcount');
        const child = await node.buildChild({ parentHex: mined.hex, vout: 0, feeRate: 3 });
        const res = await post<Answer>(t.app, '/rest-api/submit-package', { tx_hexes: [mined.hex, child.hex] });
        assert.equal(res.statusCode, 422);
        assert.equal(res.body.message, `Transaction 1 of the package is already confirmed in block ${height}.`);
      });

      test('a transaction only in the mempool, not the portal\'s, is not called confirmed (private until mined)', async () => {
        const tx = await node.buildTx({ feeRate: 3 });
        await node.rpc.call('sendrawtransaction', [tx.hex]);
        const child = await node.buildChild({ parentHex: tx.hex, vout: 0, feeRate: 5 });
        const parsed = await post<Answer>(t.app, '/rest-api/parse-tx', { tx_hexes: [child.hex] });
        assert.equal(parsed.body.transactions?.[0]?.confirmed, undefined);
        assert.doesNotMatch(parsed.body.transactions?.[0]?.message ?? '', /confirmed/);
        await node.mine(1);
      });
    });

    describe('the node\'s reasons in plain words', () => {
      test('a time-locked transaction: non-final, explained', async () => {
        const height = await node.rpc.call<number>('getblockcount');
        // Signed with a lock time ahead (and a non-final sequence): valid, but not yet final.
        const [coin] = await fundCoins(node, ['bech32']);
        const locked = (await signedSpend(node, [coin!], { locktime: height + 100, feeSats: 20_000 })).hex;
        const res = await post<Answer>(t.app, '/rest-api/submit-tx', { tx_hex: locked });
        assert.equal(res.statusCode, 422);
        assert.match(res.body.message, /^The transaction is time-locked: its lock time has not been reached yet.* \(node: non-final\)$/);
      });

      test('outputs worth more than the inputs: the node\'s verdict, explained', async () => {
        const tx = await node.buildTx({ feeRate: 3 });
        const decoded = decodeTxHex(tx.hex);
        const inflated = encodeTxHex({ ...decoded, outputs: decoded.outputs.map((o, i) => (i === 0 ? { ...o, value: o.value + 100_000_000 } : o)) });
        const res = await post<Answer>(t.app, '/rest-api/submit-tx', { tx_hex: inflated });
        assert.equal(res.statusCode, 422);
        assert.match(res.body.message, /^The outputs are worth more than the inputs.* \(node: bad-txns-in-belowout.*\)$/);
      });

      test('a package of unrelated transactions: the topology rule, explained', async () => {
        const a = await node.buildTx({ feeRate: 3 });
        const b = await node.buildTx({ feeRate: 3 });
        const res = await post<Answer>(t.app, '/rest-api/submit-package', { tx_hexes: [a.hex, b.hex] });
        assert.equal(res.statusCode, 422);
        assert.match(res.body.message, /^The package must be one child with its parents, parents first.* \(node: package topology disallowed.*\)$/);
      });

      test('inputs nobody knows: explained, with the node\'s code after', async () => {
        const parent = await node.buildTx({ feeRate: 3 });
        const orphan = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
        const res = await post<Answer>(t.app, '/rest-api/submit-tx', { tx_hex: orphan.hex });
        assert.equal(res.statusCode, 422);
        assert.match(res.body.message, /^Some inputs spend outputs the mining node does not know.* \(node: missing-inputs\)$/);
      });
    });
  });
}
