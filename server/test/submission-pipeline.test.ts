import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { RpcCode, RpcError, RpcTransportError, type RpcClient } from '../src/bitcoin/rpc-client.ts';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { NODE_UNAVAILABLE_MESSAGE } from '../src/http/errors.ts';
import { NOT_SUBMITTED_HERE } from '../src/modules/disclosure/public-disclosure.ts';
import { issueApiKey } from '../src/modules/clients/api-keys.repository.ts';
import { LEFT_MEMPOOL_MESSAGE } from '../src/modules/submission/submission-rules.ts';
import { OP_TRUE_P2WSH } from './helpers/keyless-spends.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, nodeRpc, post, startTestApp, withoutReceipt, type TestApp } from './helpers/test-app.ts';

/**
 * The submission pipeline (src/modules/submission/submission-pipeline.ts)
 * after the node's answer:
 * - which copy is recorded once the node said "success": only one its
 *   later answers show it holds (its wtxid in the mempool), or one that is
 *   mined; never one it may have confused with another witness of the same
 *   txid, which could be a private transaction;
 * - a refusal names no transaction but the caller's own and those the
 *   portal accepted, whatever the node's words name.
 * The node is real; the moments between two of its calls, and the words
 * of a node whose refusal names another transaction, are set by a hook in
 * front of its RPC client.
 */

interface Body {
  status: string;
  message: string;
}

/** Answers a node call itself (a rejection, a result) instead of the node, or undefined to let the node answer. */
type Intercept = (method: string, params: unknown[]) => Promise<unknown> | undefined;

function interceptable(rpc: RpcClient, hook: { intercept?: Intercept | undefined }): RpcClient {
  return {
    call: <T>(method: string, params: unknown[] = []) => (hook.intercept?.(method, params) as Promise<T> | undefined) ?? rpc.call<T>(method, params),
    batch: (calls) => rpc.batch(calls),
    wallet: (name) => rpc.wallet(name),
  };
}

/** P2WSH of OP_DROP OP_TRUE: any first witness item spends it, so two witnesses give one txid. */
const DROP_TRUE = '7551';

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(20);
});
after(async () => node?.stop());

for (const engine of testDatabases()) {
  describe(`the submission pipeline after the node's answer (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let plain: RpcClient;
    const hook: { intercept?: Intercept | undefined } = {};

    before(async () => {
      db = await engine.open();
      plain = nodeRpc(node);
      t = await startTestApp(node, db, { rpc: interceptable(plain, hook) });
    });
    after(async () => {
      hook.intercept = undefined;
      await t?.close();
      await db?.close();
    });

    /** The first time the pipeline asks for `txid`'s mempool entry: `answer` instead of the node. */
    const onEntryOf = (txid: string, answer: () => Promise<unknown>) => {
      hook.intercept = (method, params) => {
        if (method !== 'getmempoolentry' || params[0] !== txid) return undefined;
        hook.intercept = undefined;
        return answer();
      };
    };
    /** The first time the pipeline asks for `txid`'s mempool entry: `meanwhile`, then the node answers. */
    const beforeEntryOf = (txid: string, meanwhile: () => Promise<unknown>) => onEntryOf(txid, () => meanwhile().then(() => plain.call('getmempoolentry', [txid])));
    const submissionRows = async (txid: string) =>
      (await db.query<{ status: string }>('SELECT status FROM tx_submissions WHERE txid = $1 UNION ALL SELECT \'package\' FROM package_tx_outcomes WHERE txid = $1', [txid])).rows.map((r) => r.status);

    /** Two spends of one output, one txid: the same transaction with witness item `a`, and with `b`. */
    async function twoWitnesses(a: string, b: string): Promise<{ first: string; second: string; spend: (item: string, fee: number) => string }> {
      const { segwit } = await node.rpc.call<{ segwit: { address: string } }>('decodescript', [DROP_TRUE]);
      const fundingTxid = await node.wallet.call<string>('sendtoaddress', [segwit.address, 0.001]);
      await node.mine(1);
      const funding = decodeTxHex(await node.rpc.call<string>('getrawtransaction', [fundingTxid, 0]));
      const vout = funding.outputs.findIndex((o) => o.scriptPubKey === `0020${createHash('sha256').update(Buffer.from(DROP_TRUE, 'hex')).digest('hex')}`);
      const spend = (item: string, fee: number) =>
        encodeTxHex({
          version: 2,
          locktime: 0,
          inputs: [{ txid: fundingTxid, vout, scriptSig: '', sequence: 0xffff_fffd, witness: [item, DROP_TRUE] }],
          outputs: [{ value: 100_000 - fee, scriptPubKey: OP_TRUE_P2WSH }],
        });
      return { first: spend(a, 20_000), second: spend(b, 20_000), spend };
    }

    test('the node took the send, then could not say which copy it holds: nothing recorded, try again, the attempt kept for staff', async () => {
      const tx = await node.buildTx({ feeRate: 5 });
      onEntryOf(tx.txid, () => Promise.reject(new RpcTransportError('getmempoolentry', 'timeout', 'The Bitcoin node did not answer getmempoolentry within 30000 ms')));
      const res = await post<Body>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.deepEqual([res.statusCode, res.body.message], [503, NODE_UNAVAILABLE_MESSAGE]);
      assert.ok((await node.rpc.call<string[]>('getrawmempool')).includes(tx.txid), 'the node holds it');
      await t.records.idle();
      assert.deepEqual(await submissionRows(tx.txid), [], 'not recorded: a timeout is not knowledge');
      // Failed, not Timeout: the node answered the send itself, and a Timeout row would make the txid the portal's.
      const failure = async () => (await db.query<{ status: string }>('SELECT status FROM failed_txs WHERE txid = $1', [tx.txid])).rows.map((r) => r.status);
      assert.deepEqual(await failure(), ['Failed']);

      // Asked again, the node says which copy it holds: this one, recorded, and the kept attempt resolved.
      const again = await post<Body>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.deepEqual(withoutReceipt(again.body), { status: 'success', message: tx.txid });
      assert.deepEqual(await submissionRows(tx.txid), ['accepted']);
      assert.deepEqual(await failure(), ['Resolved']);
    });

    test('the copy the node held left its mempool between the send and the check: this one is not recorded, nor the other named', async () => {
      const { first: privateCopy, second: ours, spend } = await twoWitnesses('aa', 'bbbb');
      const txid = decodeTxHex(ours).txid;
      assert.equal(decodeTxHex(privateCopy).txid, txid);
      await node.rpc.call('sendrawtransaction', [privateCopy]);
      // The pool's other channels replace the private copy just after the node answered the portal's send.
      const replacement = spend('cc', 40_000);
      beforeEntryOf(txid, () => node.rpc.call('sendrawtransaction', [replacement]));
      const res = await post<Body>(t.app, '/rest-api/submit-tx', { tx_hex: ours });
      assert.deepEqual([res.statusCode, res.body.message], [422, LEFT_MEMPOOL_MESSAGE]);
      assert.ok(!(await node.rpc.call<string[]>('getrawmempool')).includes(txid), 'gone from the node');
      await t.records.idle();
      assert.deepEqual(await submissionRows(txid), [], 'the txid did not become the portal\'s');
      assert.equal((await get(t.app, `/rest-api/status-check?tx_id=${txid}`)).statusCode, 404);
      await node.mine(1);
    });

    test('mined between the send and the check: public, so the caller\'s copy is recorded', async () => {
      const tx = await node.buildTx({ feeRate: 5 });
      beforeEntryOf(tx.txid, () => node.mine(1));
      const res = await post<Body>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.deepEqual(withoutReceipt(res.body), { status: 'success', message: tx.txid });
      assert.deepEqual(await submissionRows(tx.txid), ['accepted']);
    });

    test('a refusal naming a transaction the portal did not accept does not carry it: submit-tx, submit-package, the dry run', async () => {
      const hidden = await node.buildTx({ feeRate: 5 });
      await node.rpc.call('sendrawtransaction', [hidden.hex]);
      const accepted = await node.buildTx({ feeRate: 5 });
      assert.equal((await post<Body>(t.app, '/rest-api/submit-tx', { tx_hex: accepted.hex })).body.status, 'success');
      await t.records.idle();
      const tx = await node.buildTx({ feeRate: 5 });
      const { wtxid } = decodeTxHex(tx.hex);
      // Bitcoin Core's words for a spend of an output of a transaction it conflicts with (policy/rbf.cpp EntriesAndTxidsDisjoint),
      // as a node would word them with other transactions in them: one private, one the portal accepted.
      const reason = `bad-txns-spends-conflicting-tx, ${tx.txid} spends conflicting transaction ${hidden.txid} and ${accepted.txid}`;
      hook.intercept = (method, params) => {
        // Hexes go to the node as ValidatedHex (bitcoin/json-rpc-body.ts): compared as the JSON they are sent as.
        const sent = JSON.stringify(params[0]);
        if (!sent?.includes(tx.hex)) return undefined;
        if (method === 'sendrawtransaction') return Promise.reject(new RpcError(method, RpcCode.VERIFY_REJECTED, reason));
        if (method === 'submitpackage') return Promise.resolve({ package_msg: 'transaction failed', 'tx-results': { [wtxid]: { txid: tx.txid, error: reason } }, 'replaced-transactions': [] });
        if (method === 'testmempoolaccept') return Promise.resolve([{ txid: tx.txid, wtxid, allowed: false, 'reject-reason': reason }]);
        return undefined;
      };
      // A client's key reads the dry run's reasons as the public does (staff read the node's).
      const client = await db.query<{ id: number }>("INSERT INTO clients (name) VALUES ('Pipeline') RETURNING id");
      const issued = await issueApiKey(db, client.rows[0]!.id, 'test');
      try {
        const refusals = {
          submit: await post(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex }),
          pkg: await post(t.app, '/rest-api/submit-package', { tx_hexes: [tx.hex] }),
          slipstream: await post(t.app, '/api/transactions', { tx_hex: tx.hex }),
          dry: await post(t.app, '/api/transactions', { tx_hex: tx.hex, skip_mempool_submission: true }),
        };
        const texts: Record<string, string> = {};
        for (const [path, res] of Object.entries(refusals)) {
          texts[path] = JSON.stringify(res.body);
          assert.ok(res.statusCode === 422 || res.statusCode === 400, `${path}: ${res.statusCode} ${texts[path]}`);
        }
        const tests = await t.app.inject({ method: 'POST', url: '/api/mempool/tests', payload: { tx_hexes: [tx.hex] }, headers: { authorization: `Bearer ${issued!.key}` } });
        assert.equal(tests.statusCode, 200, tests.body);
        texts['tests'] = String(tests.json<{ results: Array<{ reject_reason: string | null }> }>().results[0]?.reject_reason);
        for (const [path, text] of Object.entries(texts)) {
          assert.ok(!text.includes(hidden.txid), `${path} names the private transaction: ${text}`);
          assert.ok(text.includes(NOT_SUBMITTED_HERE), `${path}: ${text}`);
          assert.ok(text.includes(tx.txid) && text.includes(accepted.txid), `${path} keeps the caller's own and the portal's: ${text}`);
        }
      } finally {
        hook.intercept = undefined;
      }
    });
  });
}
