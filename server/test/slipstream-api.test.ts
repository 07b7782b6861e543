import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRpcClient } from '../src/bitcoin/rpc-client.ts';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { freePort } from '../dev/bitcoin/node-launcher.ts';
import { NODE_UNAVAILABLE_MESSAGE } from '../src/http/errors.ts';
import { TX_NOT_FOUND_MESSAGE } from '../src/modules/status/status.service.ts';
import { FEE_TOO_LOW_MESSAGE, MISSING_INPUTS_MESSAGE } from '../src/modules/submission/submission.service.ts';
import { EXPLORER_TX_NOT_FOUND_MESSAGE, MISSING_AUTHORIZATION_MESSAGE } from '../src/modules/slipstream-api/slipstream-api.routes.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, startTestApp, withoutReceipt } from './helpers/test-app.ts';
import { until } from './helpers/until.ts';
import { lockedChildOf } from './helpers/signed-spends.ts';


/** Without a policy node nothing decides the scripts, so no policy is known for a transaction every pre-script rule passes. */
const NOT_JUDGED = [
  { policy: 'core', relays: null },
  { policy: 'core-29', relays: null },
  { policy: 'knots', relays: null, explanation: "No node with Bitcoin Knots' default policy is configured to judge it." },
];
/**
 * The Slipstream-compatible public API (`/api/*`) end to end, on a real
 * regtest node and each database engine: the same pricing, records, audit
 * trail and node verdicts as `/rest-api`, in the public service's shapes.
 */

interface Rates {
  market_rate: number;
  multiplier: number;
  multiplier_discount_percent: number;
  discounted_multiplier: number;
  submit_fee_rate: number;
  slipstream_rate: number;
  effective_rate: number;
  notice?: string;
}
interface Outcome {
  status: 'success' | 'error';
  message: string;
  notice?: string;
}
interface PackageAnswer extends Outcome {
  package_msg: string;
  transactions: Array<{ txid: string | null; wtxid: string; status: string; message: string }>;
}
interface TxStatus {
  is_success: boolean;
  message?: string;
  tx_id: string;
  state: string;
  confirmed: boolean;
  block_height: number | null;
  block_hash: string | null;
  block_time: number | null;
  fee: number | null;
  vsize: number | null;
  projected_block: number | null;
  rate_to_beat: number | null;
  last_24h_odds: number | null;
  removal_reason: string | null;
  replaced_by: string | null;
}

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(40);
});
after(async () => node?.stop());

const mempoolHas = async (txid: string) => (await node.rpc.call<string[]>('getrawmempool')).includes(txid);

for (const engine of testDatabases()) {
  describe(`Slipstream-compatible API (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, node);
      const client = await db.query<{ id: number }>("INSERT INTO clients (name) VALUES ('Inscriber') RETURNING id");
      const clientId = client.rows[0]!.id;
      await db.query(
        `INSERT INTO discount_codes (code, client_id, discount_percentage, valid_from, valid_until, status) VALUES
           ('HALF', $1, 50, now() - interval '1 day', now() + interval '1 day', true),
           ('OLD', $1, 50, now() - interval '2 days', now() - interval '1 day', true)`,
        [clientId],
      );
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    /** The rates, without their quote (a signature, new every time), which holds effective_rate for the code asked with. */
    const rates = async (code?: string) => {
      const { quote, ...rest } = (await get<Rates & { quote: { threshold: number; client_code?: string } }>(t.app, `/api/rates${code === undefined ? '' : `?client_code=${code}`}`)).body;
      assert.deepEqual([quote.threshold, quote.client_code], [rest.effective_rate, code]);
      return rest;
    };

    test('rates: without a code, with an active, an expired and an unknown one; effective_rate is what submissions apply', async () => {
      // A floor below the market × multiplier (regtest's market is the relay minimum), so that the discount shows in the threshold.
      await t.setSetting('fee_rate_floor', '0.05');
      await t.setSetting('slipstream_multiplier', '40');
      try {
        const plain = await rates();
        const market = plain.market_rate;
        assert.ok(market > 0);
        assert.deepEqual(plain, {
          market_rate: market,
          multiplier: 40,
          multiplier_discount_percent: 0,
          discounted_multiplier: 40,
          submit_fee_rate: 0.05,
          slipstream_rate: market * 40,
          effective_rate: Math.max(0.05, market * 40),
        });
        assert.ok(market * 20 > 0.05, `the market (${market}) rules over the floor`);
        const info = await get<{ fee_rate: number }>(t.app, '/rest-api/getinfo');
        assert.equal(plain.effective_rate, info.body.fee_rate, '/rest-api/getinfo states the same threshold');

        const half = await rates('HALF');
        assert.deepEqual(half, { ...plain, multiplier_discount_percent: 50, discounted_multiplier: 20, slipstream_rate: market * 20, effective_rate: market * 20 });
        const expired = await rates('OLD');
        assert.deepEqual(expired, { ...plain, notice: 'Client code OLD has expired; no discount was applied.' });
        const unknown = await rates('NOPE');
        assert.deepEqual(unknown, { ...plain, notice: 'Client code NOPE is not recognised; no discount was applied.' });

        // A rate between the two thresholds: admitted with the code, refused without, as the rates said.
        const between = (half.effective_rate + plain.effective_rate) / 2;
        const withCode = await node.buildTx({ feeRate: between });
        const without = await node.buildTx({ feeRate: between });
        const refused = await post<Outcome>(t.app, '/api/transactions', { tx_hex: without.hex });
        assert.deepEqual([refused.statusCode, refused.body], [400, { status: 'error', message: FEE_TOO_LOW_MESSAGE }]);
        const admitted = await post<Outcome>(t.app, '/api/transactions', { tx_hex: withCode.hex, client_code: 'HALF' });
        assert.deepEqual([admitted.statusCode, withoutReceipt(admitted.body)], [200, { status: 'success', message: withCode.txid }]);
        const expiredCode = await post<Outcome>(t.app, '/api/transactions', { tx_hex: without.hex, client_code: 'OLD' });
        assert.deepEqual(expiredCode.body, { status: 'error', message: FEE_TOO_LOW_MESSAGE, notice: expired.notice });
      } finally {
        await t.setSetting('fee_rate_floor', '2');
        await t.setSetting('slipstream_multiplier', '2');
      }
    });

    test('system and block-info: the node\'s chain, and the same rates', async () => {
      const chain = await node.rpc.call<{ blocks: number; bestblockhash: string; time: number }>('getblockchaininfo');
      const plain = await rates();
      const system = await get(t.app, '/api/system');
      assert.equal(system.statusCode, 200);
      assert.deepEqual(system.body, { version: '0.1.0', chain_name: 'regtest', block_height: chain.blocks, slipstream_fee_rate_floor: plain.effective_rate, fee_rate_floor: plain.submit_fee_rate });
      const block = await get(t.app, '/api/block-info');
      assert.deepEqual(block.body, {
        block_height: chain.blocks,
        block_hash: chain.bestblockhash,
        block_time: chain.time,
        fee_rate: plain.market_rate,
        submit_fee_rate: plain.submit_fee_rate,
        effective_rate: plain.effective_rate,
      });
    });

    test('a submission through /api/transactions is in the mempool, the Tx Puller and TX Reports exactly like one through /rest-api', async () => {
      const viaApi = await node.buildTx({ feeRate: 3 });
      const viaRest = await node.buildTx({ feeRate: 3 });
      assert.deepEqual(withoutReceipt((await post<Outcome>(t.app, '/api/transactions', { tx_hex: viaApi.hex, client_code: 'HALF' })).body), { status: 'success', message: viaApi.txid });
      assert.deepEqual(withoutReceipt((await post<Outcome>(t.app, '/rest-api/submit-tx', { tx_hex: viaRest.hex, client_code: 'HALF' })).body), { status: 'success', message: viaRest.txid });
      assert.ok(await mempoolHas(viaApi.txid));
      await t.records.idle();
      for (const list of ['/rest-api/tx-puller/list', '/rest-api/tx-reports/list']) {
        const row = async (txid: string) => {
          const res = await t.call<{ result: Array<Record<string, unknown>> }>('GET', list, { query: { txid } });
          assert.equal(res.statusCode, 200, list);
          assert.equal(res.body.result.length, 1, `${list}: ${txid}`);
          return res.body.result[0]!;
        };
        const [a, r] = [await row(viaApi.txid), await row(viaRest.txid)];
        assert.deepEqual(Object.keys(a).sort(), Object.keys(r).sort(), list);
        // Every field the route could differ by is the same; those of the transaction itself are its own.
        const own = new Set(['id', 'txid', 'timestamp', 'created_at', 'tx_hex', 'wtxid', 'fee', 'revenue', 'premium', 'size', 'vsize', 'weight', 'size_bytes', 'fee_rate', 'functional_rate', 'slipstream_multiplier', 'multiplier', 'market_rate', 'threshold_rate']);
        for (const key of Object.keys(a)) if (!own.has(key)) assert.deepEqual(a[key], r[key], `${list}: ${key}`);
        assert.ok(JSON.stringify(a).includes(viaApi.txid));
        assert.equal(a.client_code, 'HALF');
      }
    });

    test('refusals in the documented shape: below the threshold, bad hex, missing inputs; nothing recorded', async () => {
      const cheap = await node.buildTx({ feeRate: 1 });
      const low = await post<Outcome>(t.app, '/api/transactions', { tx_hex: cheap.hex });
      assert.deepEqual([low.statusCode, low.body], [400, { status: 'error', message: FEE_TOO_LOW_MESSAGE }]);
      const bad = await post<Outcome>(t.app, '/api/transactions', { tx_hex: 'zz' });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.body.status, 'error');
      assert.equal((await post<Outcome>(t.app, '/rest-api/submit-tx', { tx_hex: 'zz' })).body.message, bad.body.message, 'the same words as /rest-api');
      const parent = await node.buildTx({ feeRate: 3 });
      const orphan = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 5 });
      const missing = await post<Outcome>(t.app, '/api/transactions', { tx_hex: orphan.hex });
      assert.deepEqual([missing.statusCode, missing.body], [400, { status: 'error', message: MISSING_INPUTS_MESSAGE }]);
      const unknownField = await post<Outcome>(t.app, '/api/transactions', { tx_hex: cheap.hex, extra: 1 });
      assert.deepEqual([unknownField.statusCode, unknownField.body.status], [400, 'error']);
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tx_submissions WHERE txid = ANY($1)', [[cheap.txid, orphan.txid]]);
      assert.equal(rows[0]!.n, 0);
    });

    test('skip_mempool_submission judges without sending: the mempool untouched, nothing recorded', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const res = await post<Outcome>(t.app, '/api/transactions', { tx_hex: tx.hex, skip_mempool_submission: true });
      // No policy node here: whether the public network would relay it is unknown, never guessed.
      assert.deepEqual([res.statusCode, res.body], [200, { status: 'success', message: tx.txid, standard: { verdict: 'unknown' }, policies: NOT_JUDGED }]);
      assert.ok(!(await mempoolHas(tx.txid)));
      await t.records.idle();
      const { rows } = await db.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM tx_submissions WHERE txid = $1) + (SELECT count(*) FROM failed_txs WHERE txid = $1) AS n`,
        [tx.txid],
      );
      assert.equal(Number(rows[0]!.n), 0);
      const cheap = await node.buildTx({ feeRate: 1 });
      const low = await post<Outcome>(t.app, '/api/transactions', { tx_hex: cheap.hex, skip_mempool_submission: true });
      assert.deepEqual([low.statusCode, low.body], [400, { status: 'error', message: FEE_TOO_LOW_MESSAGE }]);
      // The node's own verdict: a broken signature passes the pricing and fails testmempoolaccept.
      const decoded = decodeTxHex(tx.hex);
      const sig = decoded.inputs[0]!.witness[0]!;
      const forged = encodeTxHex({ ...decoded, inputs: decoded.inputs.map((i) => ({ ...i, witness: [sig.slice(0, 20) + (sig[20] === '0' ? '1' : '0') + sig.slice(21), ...i.witness.slice(1)] })) });
      const refused = await post<Outcome>(t.app, '/api/transactions', { tx_hex: forged, skip_mempool_submission: true });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body.message, /script-verify|signature/i);
      assert.ok(!(await mempoolHas(tx.txid)));
    });

    test('packages: accepted whole, and refused in part with each member\'s outcome', async () => {
      const parent = await node.buildTx({ feeRate: 3 });
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 3 });
      const ok = await post<PackageAnswer>(t.app, '/api/transactions/packages', { tx_hexes: [parent.hex, child.hex] });
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.body.status, 'success');
      assert.equal(ok.body.package_msg, 'success');
      assert.deepEqual(ok.body.transactions.map((m) => [m.txid, m.status]).sort(), [[parent.txid, 'success'], [child.txid, 'success']].sort());
      await t.records.idle();
      const pkg = await db.query<{ txids: string[] }>('SELECT txids FROM package_submissions WHERE $1 = ANY(txids)', [child.txid]);
      assert.deepEqual(pkg.rows[0]?.txids, [parent.txid, child.txid]);

      const p2 = await node.buildTx({ feeRate: 3 });
      // Signed, but locked until a later block: the node takes the parent and refuses the child (non-final).
      const c2 = await lockedChildOf(node, p2.hex);
      const broken = c2.hex;
      const part = await post<PackageAnswer>(t.app, '/api/transactions/packages', { tx_hexes: [p2.hex, broken] });
      assert.equal(part.statusCode, 400);
      assert.equal(part.body.status, 'error');
      assert.notEqual(part.body.package_msg, 'success');
      const byTxid = new Map(part.body.transactions.map((m) => [m.txid, m]));
      assert.equal(byTxid.get(p2.txid)?.status, 'success');
      assert.equal(byTxid.get(c2.txid)?.status, 'error');
      assert.ok(await mempoolHas(p2.txid));
      assert.ok(!(await mempoolHas(c2.txid)));

      const single = await post<Outcome>(t.app, '/api/transactions/packages', { tx_hexes: [p2.hex] });
      assert.deepEqual([single.statusCode, single.body.status], [400, 'error'], 'a package has 2 members at least');
    });

    interface ExplorerOutput {
      scriptpubkey: string;
      scriptpubkey_type: string;
      scriptpubkey_address?: string;
      value: number;
    }
    interface ExplorerTx {
      txid: string;
      fee: number;
      vin: Array<{ txid: string; vout: number; prevout: ExplorerOutput | null }>;
      vout: ExplorerOutput[];
      status: unknown;
    }

    /**
     * Each output's type and address as the node's wallet knows its own
     * addresses, and each input's prevout: the coin the wallet spent, and
     * together they pay exactly the fee.
     */
    async function explorerOutputsAgree(tx: ExplorerTx, fee: number): Promise<void> {
      for (const o of tx.vout) {
        // The test wallet's outputs are P2WPKH (bech32 addresses of 20-byte key hashes).
        assert.equal(o.scriptpubkey_type, 'v0_p2wpkh', o.scriptpubkey);
        assert.ok(o.scriptpubkey_address, `an address for ${o.scriptpubkey}`);
        const info = await node.rpc.call<{ scriptPubKey: string; ismine: boolean }>('getaddressinfo', [o.scriptpubkey_address]);
        assert.deepEqual([info.scriptPubKey, info.ismine], [o.scriptpubkey, true]);
      }
      for (const input of tx.vin) {
        // The coin the wallet spent, from the wallet's own record of the transaction that made it.
        const made = decodeTxHex((await node.rpc.call<{ hex: string }>('gettransaction', [input.txid])).hex).outputs[input.vout]!;
        assert.deepEqual([input.prevout?.scriptpubkey, input.prevout?.value, input.prevout?.scriptpubkey_type], [made.scriptPubKey, made.value, 'v0_p2wpkh']);
      }
      const paidIn = tx.vin.reduce((sum, i) => sum + i.prevout!.value, 0);
      const paidOut = tx.vout.reduce((sum, o) => sum + o.value, 0);
      assert.equal(paidIn - paidOut, fee);
    }

    test('status: submitted, mined, replaced and unknown; explorer reads of the same', async () => {
      const tx = await node.buildTx({ feeRate: 4 });
      await post(t.app, '/api/transactions', { tx_hex: tx.hex });
      await t.records.idle();
      const waiting = await get<TxStatus>(t.app, `/api/transactions/status?tx_id=${tx.txid}`);
      assert.equal(waiting.statusCode, 200);
      assert.equal(waiting.body.is_success, true);
      assert.equal(waiting.body.state, 'in_mempool');
      assert.deepEqual([waiting.body.confirmed, waiting.body.fee, waiting.body.vsize, waiting.body.projected_block], [false, tx.fee, tx.vsize, 0]);
      assert.equal(typeof waiting.body.rate_to_beat, 'number');
      assert.deepEqual((await get(t.app, `/api/tx/${tx.txid}/status`)).body, { confirmed: false });
      const explorerTx = await get<ExplorerTx>(t.app, `/api/tx/${tx.txid.toUpperCase()}`);
      assert.equal(explorerTx.statusCode, 200);
      const decoded = decodeTxHex(tx.hex);
      assert.deepEqual([explorerTx.body.txid, explorerTx.body.fee, explorerTx.body.vin.length], [tx.txid, tx.fee, decoded.inputs.length]);
      assert.deepEqual(explorerTx.body.vout.map((o) => o.value), decoded.outputs.map((o) => o.value));
      await explorerOutputsAgree(explorerTx.body, tx.fee);
      const rawHex = await t.app.inject({ method: 'GET', url: `/api/tx/${tx.txid}/hex` });
      assert.deepEqual([rawHex.statusCode, rawHex.headers['content-type'], rawHex.body], [200, 'text/plain; charset=utf-8', tx.hex.toLowerCase()]);
      // A child of it: the output it spends is unconfirmed, in the pool's private mempool, so not shown.
      const child = await node.buildChild({ parentHex: tx.hex, vout: 0, feeRate: 5 });
      assert.equal((await post<Outcome>(t.app, '/api/transactions', { tx_hex: child.hex })).body.status, 'success');
      const explorerChild = await get<ExplorerTx>(t.app, `/api/tx/${child.txid}`);
      assert.deepEqual(explorerChild.body.vin.map((i) => [i.txid, i.prevout]), [[tx.txid, null]]);

      const [hash] = await node.mine(1);
      const header = await node.rpc.call<{ height: number; time: number }>('getblockheader', [hash]);
      const mined = await get<TxStatus>(t.app, `/api/transactions/status?tx_id=${tx.txid}`);
      assert.deepEqual([mined.body.state, mined.body.confirmed, mined.body.block_hash, mined.body.block_height, mined.body.block_time], ['confirmed', true, hash, header.height, header.time]);
      assert.deepEqual((await get(t.app, `/api/tx/${tx.txid}/status`)).body, { confirmed: true, block_height: header.height, block_hash: hash, block_time: header.time });
      // Mined: its inputs are spent in the chain now, and their prevouts come from the block's undo data.
      await explorerOutputsAgree((await get<ExplorerTx>(t.app, `/api/tx/${tx.txid}`)).body, tx.fee);

      const original = await node.buildTx({ feeRate: 4 });
      await post(t.app, '/api/transactions', { tx_hex: original.hex });
      await t.records.idle();
      const replacement = await node.buildReplacement(original.hex, 20);
      await node.rpc.call('sendrawtransaction', [replacement.hex]);
      const replaced = await get<TxStatus>(t.app, `/api/transactions/status?tx_id=${original.txid}`);
      // Sent to the pool's node some other way: private, so not named.
      assert.deepEqual([replaced.body.state, replaced.body.removal_reason, replaced.body.replaced_by, replaced.body.confirmed], ['not_in_mempool', 'replaced', null, false]);

      const unknownTxid = 'ab'.repeat(32);
      const unknown = await get(t.app, `/api/transactions/status?tx_id=${unknownTxid}`);
      assert.deepEqual([unknown.statusCode, unknown.body], [404, { is_success: false, message: TX_NOT_FOUND_MESSAGE }]);
      const badId = await get(t.app, '/api/transactions/status?tx_id=nope');
      assert.deepEqual([badId.statusCode, (badId.body as { is_success: boolean }).is_success], [400, false]);
      // Not the portal's: not found, even once mined (the explorer reads serve the portal's own transactions),
      // though the status, like /rest-api/status-check, finds it mined in a recent block.
      const elsewhere = await node.buildTx({ feeRate: 4 });
      await node.rpc.call('sendrawtransaction', [elsewhere.hex]);
      assert.equal((await get(t.app, `/api/tx/${elsewhere.txid}/status`)).statusCode, 404);
      const [minedElsewhere] = await node.mine(1);
      assert.deepEqual((await get(t.app, `/api/tx/${elsewhere.txid}`)).body, { is_success: false, message: EXPLORER_TX_NOT_FOUND_MESSAGE });
      const elsewhereHex = await get(t.app, `/api/tx/${elsewhere.txid}/hex`);
      assert.deepEqual([elsewhereHex.statusCode, elsewhereHex.body], [404, { is_success: false, message: EXPLORER_TX_NOT_FOUND_MESSAGE }]);
      const elsewhereStatus = await get<TxStatus>(t.app, `/api/transactions/status?tx_id=${elsewhere.txid}`);
      assert.deepEqual([elsewhereStatus.statusCode, elsewhereStatus.body.state, elsewhereStatus.body.block_hash], [200, 'confirmed', minedElsewhere]);
    });

    test('the dry run: 401 without authorization; a staff token or a client\'s API key; revoked keys stop working', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      const dry = (authorization?: string) =>
        t.app.inject({ method: 'POST', url: '/api/mempool/tests', payload: { tx_hexes: [tx.hex] }, headers: authorization ? { authorization } : {} });
      for (const header of [undefined, 'Bearer', 'Bearer sk_not-a-key', 'Bearer not-a-token', 'Basic abc']) {
        const res = await dry(header);
        assert.deepEqual([res.statusCode, res.json()], [401, { is_success: false, message: MISSING_AUTHORIZATION_MESSAGE }], String(header));
      }
      const staff = await dry(`Bearer ${t.tokens.viewer}`);
      assert.equal(staff.statusCode, 200);
      assert.deepEqual(staff.json(), { is_success: true, results: [{ txid: tx.txid, wtxid: decodeTxHex(tx.hex).wtxid, allowed: true, vsize: tx.vsize, fee: tx.fee, reject_reason: null, standard: { verdict: 'unknown' }, policies: NOT_JUDGED }] });

      const clientId = (await db.query<{ id: number }>("SELECT id FROM clients WHERE name = 'Inscriber'")).rows[0]!.id;
      assert.equal((await t.call('POST', `/rest-api/client/${clientId}/api-keys`, { as: 'viewer' })).statusCode, 403, 'administrators only');
      const issued = await t.call<{ secret: string; api_key: { id: number; key_prefix: string; revoked_at: string | null } }>('POST', `/rest-api/client/${clientId}/api-keys`);
      assert.equal(issued.statusCode, 200);
      assert.match(issued.body.secret, /^sk_[A-Za-z0-9_-]{43}$/);
      assert.ok(issued.body.secret.startsWith(issued.body.api_key.key_prefix));
      const stored = await db.query<{ key_hash: string }>('SELECT key_hash FROM client_api_keys WHERE id = $1', [issued.body.api_key.id]);
      assert.notEqual(stored.rows[0]!.key_hash, issued.body.secret, 'only a hash is kept');
      assert.ok(!JSON.stringify(stored.rows).includes(issued.body.secret));
      const listed = await t.call<{ result: Array<Record<string, unknown>> }>('GET', `/rest-api/client/${clientId}/api-keys`);
      assert.ok(!JSON.stringify(listed.body).includes(issued.body.secret), 'never shown again');

      const byKey = await dry(`Bearer ${issued.body.secret}`);
      assert.equal(byKey.statusCode, 200);
      assert.equal(byKey.json<{ results: Array<{ allowed: boolean }> }>().results[0]!.allowed, true);
      assert.ok(!(await mempoolHas(tx.txid)), 'a dry run submits nothing');

      assert.equal((await t.call('DELETE', `/rest-api/client/${clientId}/api-keys/${issued.body.api_key.id}`)).statusCode, 200);
      assert.deepEqual((await dry(`Bearer ${issued.body.secret}`)).json(), { is_success: false, message: MISSING_AUTHORIZATION_MESSAGE });
      await t.audit.flush();
      const audited = await db.query<{ response_payload: string | null }>("SELECT response_payload FROM audit_logs WHERE endpoint = '/rest-api/client/:id/api-keys' AND http_method = 'POST'");
      assert.ok(audited.rows.length > 0);
      assert.ok(audited.rows.every((r) => !(r.response_payload ?? '').includes(issued.body.secret)), 'the audit trail does not keep the key');
    });

    test('the audit trail records /api requests under the matched route; an unrouted /api path gets the API\'s 404', async () => {
      const tx = await node.buildTx({ feeRate: 3 });
      await post(t.app, '/api/transactions', { tx_hex: tx.hex, client_code: 'HALF' });
      await get(t.app, `/api/tx/${tx.txid}/status`);
      const nowhere = await get(t.app, '/api/no-such-thing?x=1');
      assert.deepEqual([nowhere.statusCode, nowhere.body], [404, { status: 'error', message: 'No such endpoint: GET /api/no-such-thing' }]);
      const rows = async () =>
        (await db.query<{ endpoint: string; client_code: string | null; is_success: boolean }>(
          "SELECT endpoint, client_code, is_success FROM audit_logs WHERE endpoint IN ('/api/transactions', '/api/tx/:txid/status', '/api/no-such-thing') AND request_payload LIKE $1 OR endpoint = '/api/no-such-thing' OR (endpoint = '/api/tx/:txid/status' AND response_payload LIKE '%confirmed%')",
          [`%${tx.hex.slice(0, 40)}%`],
        )).rows;
      await until(async () => {
        await t.audit.flush();
        return new Set((await rows()).map((r) => r.endpoint)).size === 3;
      }, async () => JSON.stringify(await rows()));
      const found = await rows();
      assert.deepEqual(found.find((r) => r.endpoint === '/api/transactions'), { endpoint: '/api/transactions', client_code: 'HALF', is_success: true });
      assert.equal(found.find((r) => r.endpoint === '/api/no-such-thing')?.is_success, false);
    });
  });
}

describe('Slipstream-compatible API with the node down', () => {
  test('a submission answers 503 in the documented shape', async () => {
    const engine = testDatabases()[0]!;
    const db = await engine.open();
    const rpc = createRpcClient({ url: `http://127.0.0.1:${await freePort()}`, auth: { kind: 'userpass', user: 'u', password: 'p' }, timeoutMs: 500, maxConcurrency: 1 });
    const t = await startTestApp(node, db, { rpc });
    try {
      const tx = await node.buildTx({ feeRate: 3 });
      const res = await post<Outcome>(t.app, '/api/transactions', { tx_hex: tx.hex });
      assert.deepEqual([res.statusCode, res.body], [503, { status: 'error', message: NODE_UNAVAILABLE_MESSAGE }]);
      const rates = await get(t.app, '/api/rates');
      assert.deepEqual([rates.statusCode, rates.body], [503, { is_success: false, message: NODE_UNAVAILABLE_MESSAGE }]);
    } finally {
      await t.close();
      await db.close();
    }
  });
});

describe('Slipstream-compatible API: one rate-limit budget per address with the public /rest-api routes', () => {
  test('requests to either API spend one budget; the 429 carries Retry-After, readable from another origin', async () => {
    const db = await testDatabases()[0]!.open();
    const t = await startTestApp(node, db, { rateLimitMax: 4 });
    try {
      const origin = 'https://tool.example';
      const spend = (url: string) => t.app.inject({ method: 'GET', url, headers: { origin } });
      for (const url of ['/api/rates', '/rest-api/getinfo', '/api/system', '/rest-api/site-info']) assert.equal((await spend(url)).statusCode, 200, url);
      for (const url of ['/api/block-info', '/rest-api/getinfo', '/api/transactions/status?tx_id=x']) {
        const limited = await spend(url);
        assert.equal(limited.statusCode, 429, url);
        assert.match(String(limited.headers['retry-after']), /^\d+$/);
        assert.equal(limited.headers['access-control-allow-origin'], '*');
        assert.match(String(limited.headers['access-control-expose-headers']), /retry-after/i);
      }
      const shaped = await spend('/api/rates');
      assert.deepEqual(Object.keys(shaped.json()).sort(), ['is_success', 'message'], 'the reads answer a 429 in their own error shape');
      const submit = await t.app.inject({ method: 'POST', url: '/api/transactions', payload: { tx_hex: '00' } });
      assert.deepEqual([submit.statusCode, submit.json<{ status: string }>().status], [429, 'error']);
    } finally {
      await t.close();
      await db.close();
    }
  });
});
