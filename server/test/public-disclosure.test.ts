import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { createHash } from 'node:crypto';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { invalidSignatureMessage, OTHER_WITNESS_MESSAGE } from '../src/modules/submission/submission-rules.ts';
import { DRY_RUN_PRIVATE_CONFLICT_MESSAGE, PRIVATE_CONFLICT_MESSAGE } from '../src/modules/submission/private-conflicts.ts';
import { REMOVAL_MESSAGES, REPLACED_ELSEWHERE_MESSAGE } from '../src/modules/status/removal-finder.ts';
import type { StatusResponse } from '../src/modules/status/status.schemas.ts';
import { OP_TRUE_P2WSH, unsignedSpendOf } from './helpers/keyless-spends.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * An anonymous answer names only transactions the node accepted from the
 * portal, or that are mined (modules/disclosure/public-disclosure.ts).
 * Each case is an attack an outside review ran against a live portal:
 * - a submission still 'pending' with the node is not the portal's yet: a
 *   stranger polling the status of an unsigned spend of a public outpoint
 *   while the node judges it must not learn which private transaction
 *   spends that outpoint;
 * - the portal's transaction replaced by a private one: said, without the
 *   replacement's txid, in both status APIs;
 * - a package replacing a private transaction: the node's
 *   `replaced-transactions` does not reach the caller.
 * The private transaction is sent straight to the node, as a pool's other
 * channels (its own wallet, a private relay) do.
 */

type StatusBody = StatusResponse & { status?: string; message?: string };

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(30);
});
after(async () => node?.stop());

for (const engine of testDatabases()) {
  describe(`public answers name only the portal's transactions (${engine.name})`, () => {
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

    const status = (txid: string) => get<StatusBody>(t.app, `/rest-api/status-check?tx_id=${txid}`);
    const apiStatus = (txid: string) => get<Record<string, unknown>>(t.app, `/api/transactions/status?tx_id=${txid}`);

    test('a pending row is not the portal\'s: its status names no private spender of its inputs', async () => {
      // X: a confirmed output; P: the pool's private spend of it.
      const funding = await node.buildTx({ feeRate: 5 });
      await node.rpc.call('sendrawtransaction', [funding.hex]);
      await node.mine(1);
      const value = decodeTxHex(funding.hex).outputs[0]!.value;
      const privateSpend = await node.buildChild({ parentHex: funding.hex, vout: 0, feeRate: 8 });
      await node.rpc.call('sendrawtransaction', [privateSpend.hex]);

      // T: the stranger's unsigned spend of X, caught while the node judges it
      // (the row submit-tx writes before the node answers, held open here).
      const probe = unsignedSpendOf(funding.txid, 0, value);
      const probeTx = decodeTxHex(probe);
      await db.query(
        `INSERT INTO tx_submissions (txid, wtxid, tx_hex, size, vsize, weight, fee, fee_rate, functional_rate, market_rate, threshold_rate, multiplier, status, claim)
         VALUES ($1, $2, $3, $4, $5, $6, 10000, 50, 50, 1, 2, 50, 'pending', gen_random_uuid())`,
        [probeTx.txid, probeTx.wtxid, probe, probeTx.size, Math.ceil(probeTx.weight / 4), probeTx.weight],
      );

      const rest = await status(probeTx.txid);
      assert.equal(rest.statusCode, 404, JSON.stringify(rest.body));
      assert.doesNotMatch(JSON.stringify(rest.body), new RegExp(privateSpend.txid));
      const api = await apiStatus(probeTx.txid);
      assert.doesNotMatch(JSON.stringify(api.body), new RegExp(privateSpend.txid));
    });

    test('replaced by a transaction sent to the pool some other way: said without its txid, in both APIs', async () => {
      const original = await node.buildTx({ feeRate: 4 });
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: original.hex })).body.status, 'success');
      await t.records.idle();
      const replacement = await node.buildReplacement(original.hex, 20);
      await node.rpc.call('sendrawtransaction', [replacement.hex]);

      const rest = await status(original.txid);
      assert.equal(rest.statusCode, 200);
      assert.deepEqual(rest.body.removal, { reason: 'replaced', replaced_by: null, message: REPLACED_ELSEWHERE_MESSAGE });
      assert.doesNotMatch(JSON.stringify(rest.body), new RegExp(replacement.txid));
      const api = await apiStatus(original.txid);
      assert.equal(api.body.replaced_by, null);
      assert.doesNotMatch(JSON.stringify(api.body), new RegExp(replacement.txid));

      // Still unnamed once mined: the row keeps it for staff, the answer does not read it.
      await node.mine(1);
      const later = await status(original.txid);
      assert.doesNotMatch(JSON.stringify(later.body), new RegExp(replacement.txid));
      const { rows } = await db.query<{ replaced_by: string }>('SELECT replaced_by FROM tx_submissions WHERE txid = $1', [original.txid]);
      assert.equal(rows[0]?.replaced_by, replacement.txid, 'staff keep the node\'s answer');
    });

    test('replaced by a transaction submitted here: named', async () => {
      const original = await node.buildTx({ feeRate: 4 });
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: original.hex })).body.status, 'success');
      const replacement = await node.buildReplacement(original.hex, 20);
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: replacement.hex })).body.status, 'success');
      await t.records.idle();
      const rest = await status(original.txid);
      assert.deepEqual(rest.body.removal, { reason: 'replaced', replaced_by: replacement.txid, message: REMOVAL_MESSAGES.replaced });
      assert.equal((await apiStatus(original.txid)).body.replaced_by, replacement.txid);
    });

    test('a package replacing a private transaction does not name it', async () => {
      const hidden = await node.buildTx({ feeRate: 3 });
      await node.rpc.call('sendrawtransaction', [hidden.hex]);
      const parent = await node.buildReplacement(hidden.hex, 30);
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 30 });
      const res = await post<{ status: string; result?: Record<string, unknown> }>(t.app, '/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex] });
      // The node took the package (it replaced the private transaction), or refused it: either way the answer names only the package.
      const mempool = await node.rpc.call<string[]>('getrawmempool');
      assert.ok(mempool.includes(parent.txid) || res.statusCode === 422, JSON.stringify(res.body));
      assert.doesNotMatch(JSON.stringify(res.body), new RegExp(hidden.txid));
      if (mempool.includes(parent.txid)) {
        assert.ok(!mempool.includes(hidden.txid), 'the package replaced the private transaction');
        assert.deepEqual(res.body.result?.['replaced-transactions'] ?? [], []);
      }
    });

    test('a private spend of a stranger\'s own coin is never named, whatever the coin is worth', async () => {
      const funding = await node.buildTx({ feeRate: 5 });
      await node.rpc.call('sendrawtransaction', [funding.hex]);
      await node.mine(1);
      const privateSpend = await node.buildChild({ parentHex: funding.hex, vout: 0, feeRate: 8 });
      await node.rpc.call('sendrawtransaction', [privateSpend.hex]);
      const value = btcToSats((await node.rpc.call<{ value: number } | null>('gettxout', [funding.txid, 0, false]))!.value);
      const res = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: unsignedSpendOf(funding.txid, 0, value) });
      assert.equal(res.statusCode, 422);
      assert.doesNotMatch(JSON.stringify(res.body), new RegExp(privateSpend.txid));
    });

    test('a private transaction\'s copy with its witness stripped is refused as a never-sent one is, on every path', async () => {
      const hidden = await node.buildTx({ feeRate: 5 });
      await node.rpc.call('sendrawtransaction', [hidden.hex]);
      const stranger = await node.buildTx({ feeRate: 5 });
      const stripped = (hex: string) => encodeTxHex({ ...decodeTxHex(hex), inputs: decodeTxHex(hex).inputs.map((i) => ({ ...i, witness: [] })) });
      const answers = async (hex: string) => ({
        submit: await post(t.app, '/rest-api/submit-tx', { tx_hex: hex }),
        pkg: await post(t.app, '/rest-api/submit-package', { tx_hexes: [hex] }),
        dry: await post(t.app, '/api/transactions', { tx_hex: hex, skip_mempool_submission: true }),
      });
      const ofHidden = await answers(stripped(hidden.hex));
      const ofStranger = await answers(stripped(stranger.hex));
      for (const path of ['submit', 'pkg', 'dry'] as const) {
        // 422 on /rest-api, 400 on the Slipstream-compatible /api: refused either way, and alike.
        assert.ok(ofHidden[path].statusCode === 422 || ofHidden[path].statusCode === 400, `${path}: ${JSON.stringify(ofHidden[path].body)}`);
        assert.deepEqual([ofHidden[path].statusCode, ofHidden[path].body], [ofStranger[path].statusCode, ofStranger[path].body], path);
      }
      assert.equal((await status(hidden.txid)).statusCode, 404, 'still not the portal\'s');
    });

    test('another witness the portal cannot check, for a private transaction: refused, not recorded, the private copy still private', async () => {
      // P2WSH of OP_DROP OP_TRUE: any first witness item spends it, so two witnesses give one txid.
      const script = '7551';
      const { segwit } = await node.rpc.call<{ segwit: { address: string } }>('decodescript', [script]);
      const fundingTxid = await node.wallet.call<string>('sendtoaddress', [segwit.address, 0.001]);
      await node.mine(1);
      const funding = decodeTxHex(await node.rpc.call<string>('getrawtransaction', [fundingTxid, 0]));
      const vout = funding.outputs.findIndex((o) => o.scriptPubKey === `0020${createHash('sha256').update(Buffer.from(script, 'hex')).digest('hex')}`);
      const spend = (item: string) =>
        encodeTxHex({
          version: 2,
          locktime: 0,
          inputs: [{ txid: fundingTxid, vout, scriptSig: '', sequence: 0xffff_fffd, witness: [item, script] }],
          outputs: [{ value: 100_000 - 20_000, scriptPubKey: OP_TRUE_P2WSH }],
        });
      const privateCopy = spend('aa');
      const ours = spend('bbbb');
      assert.equal(decodeTxHex(privateCopy).txid, decodeTxHex(ours).txid);
      await node.rpc.call('sendrawtransaction', [privateCopy]);
      const txid = decodeTxHex(ours).txid;

      const res = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: ours });
      assert.equal(res.statusCode, 422, JSON.stringify(res.body));
      assert.equal(res.body.message, OTHER_WITNESS_MESSAGE);
      const pkg = await post<{ result?: { package_msg: string } }>(t.app, '/rest-api/submit-package', { tx_hexes: [ours] });
      assert.equal(pkg.statusCode, 422, JSON.stringify(pkg.body));
      assert.doesNotMatch(JSON.stringify(pkg.body), new RegExp(decodeTxHex(privateCopy).wtxid));
      const dry = await post<{ message: string }>(t.app, '/api/transactions', { tx_hex: ours, skip_mempool_submission: true });
      assert.deepEqual([dry.statusCode, dry.body.message], [400, OTHER_WITNESS_MESSAGE]);
      const { rows } = await db.query('SELECT 1 FROM tx_submissions WHERE txid = $1 UNION ALL SELECT 1 FROM package_tx_outcomes WHERE txid = $1', [txid]);
      assert.equal(rows.length, 0, 'nothing recorded');
      assert.equal((await status(txid)).statusCode, 404);
      await node.mine(1);
    });

    test('a high-S copy of a private transaction (same txid, a signature only the node refuses) is refused as it is for an unknown one', async () => {
      const hidden = await node.buildTx({ feeRate: 5 });
      await node.rpc.call('sendrawtransaction', [hidden.hex]);
      const stranger = await node.buildTx({ feeRate: 5 });
      const ofHidden = await post(t.app, '/api/transactions', { tx_hex: withHighS(hidden.hex), skip_mempool_submission: true });
      const ofStranger = await post(t.app, '/api/transactions', { tx_hex: withHighS(stranger.hex), skip_mempool_submission: true });
      assert.equal(ofHidden.statusCode, 400, JSON.stringify(ofHidden.body));
      assert.deepEqual([ofHidden.statusCode, ofHidden.body], [ofStranger.statusCode, ofStranger.body]);
      const submitted = await post<{ message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: withHighS(hidden.hex) });
      assert.deepEqual([submitted.statusCode, submitted.body.message], [422, invalidSignatureMessage(0)]);
    });

    /**
     * A version 3 parent with two keyless (P2WSH OP_TRUE) outputs of 90,000 sats, submitted here, so public;
     * `spend` builds a version 3 child of any of its outputs, which anyone can sign.
     */
    const publicTrucParent = async () => {
      const { segwit } = await node.rpc.call<{ segwit: { address: string } }>('decodescript', ['51']);
      const fundingTxid = await node.wallet.call<string>('sendtoaddress', [segwit.address, 0.002]);
      await node.mine(1);
      const funding = decodeTxHex(await node.rpc.call<string>('getrawtransaction', [fundingTxid, 0]));
      const spend = (txid: string, vout: number, values: number[]) =>
        encodeTxHex({
          version: 3,
          locktime: 0,
          inputs: [{ txid, vout, scriptSig: '', sequence: 0xffff_fffd, witness: ['51'] }],
          outputs: values.map((value) => ({ value, scriptPubKey: OP_TRUE_P2WSH })),
        });
      const parent = spend(fundingTxid, funding.outputs.findIndex((o) => o.scriptPubKey === OP_TRUE_P2WSH), [90_000, 90_000]);
      const parentTxid = decodeTxHex(parent).txid;
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: parent })).body.status, 'success');
      await t.records.idle();
      return { spend, parentTxid };
    };

    test('a version 3 child refused for paying less than a private sibling: neither the sibling nor its fee rate is told', async () => {
      // P: a version 3 parent with two keyless outputs, submitted here (public). C1: the pool's private
      // child of P:0. C2: a stranger's child of P:1, which the node judges by sibling eviction (BIP431):
      // its refusal would be worded with C1's fee rate ("old feerate …").
      const { spend, parentTxid } = await publicTrucParent();
      const sibling = spend(parentTxid, 0, [90_000 - 7_777]);
      await node.rpc.call('sendrawtransaction', [sibling]);
      const siblingRate = (await node.rpc.call<{ fees: { base: number }; vsize: number }>('getmempoolentry', [decodeTxHex(sibling).txid]));
      // The sibling's fee rate as the node words it (BTC/kvB, 8 decimals).
      const told = ((btcToSats(siblingRate.fees.base) / siblingRate.vsize) * 1000 / 1e8).toFixed(8);

      const probe = spend(parentTxid, 1, [90_000 - 3_000]);
      const answers = {
        submit: await post<Record<string, unknown>>(t.app, '/rest-api/submit-tx', { tx_hex: probe }),
        pkg: await post<Record<string, unknown>>(t.app, '/rest-api/submit-package', { tx_hexes: [probe] }),
        dry: await post<Record<string, unknown>>(t.app, '/api/transactions', { tx_hex: probe, skip_mempool_submission: true }),
      };
      for (const [path, res] of Object.entries(answers)) {
        assert.ok(res.statusCode === 422 || res.statusCode === 400, `${path}: ${JSON.stringify(res.body)}`);
        assert.doesNotMatch(JSON.stringify(res.body), new RegExp(told), `${path} tells the private sibling's fee rate`);
        assert.doesNotMatch(JSON.stringify(res.body), /sibling|old feerate/, `${path} tells that a private sibling exists`);
        assert.equal(res.body.message, path === 'dry' ? DRY_RUN_PRIVATE_CONFLICT_MESSAGE : PRIVATE_CONFLICT_MESSAGE, path);
      }
      assert.ok((await node.rpc.call<string[]>('getrawmempool')).includes(decodeTxHex(sibling).txid), 'the sibling stays');
      await node.mine(1);
    });

    test('a dry run cannot measure a private sibling\'s fee rate: a version 3 child below and above it hears the same', async () => {
      // As above: P public (submitted here), C1 its private child. A stranger holding P:1 dry-runs children
      // at several fees; were the answers to flip from refusal to success where C1's rate lies, a bisection of
      // free, invisible requests would measure a private transaction's fee rate (the submission itself evicts
      // C1 when it succeeds, so only the dry run can be repeated at will).
      const { spend, parentTxid } = await publicTrucParent();
      await node.rpc.call('sendrawtransaction', [spend(parentTxid, 0, [90_000 - 7_777])]);

      const dry = async (fee: number) => {
        const res = await post<{ status: string; message: string }>(t.app, '/api/transactions', { tx_hex: spend(parentTxid, 1, [90_000 - fee]), skip_mempool_submission: true });
        return [res.statusCode, res.body.status, res.body.message];
      };
      assert.deepEqual(await dry(3_000), await dry(20_000), 'the answer flips where the private sibling\'s fee lies');
      await node.mine(1);
    });
  });
}

/** The group order of secp256k1. */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaae6dcaf48a03bbfd25e8cd0364141n;

/** `hex` with its first input's ECDSA signature (witness item 0) given the other S, n − S: the same txid, a high S. */
function withHighS(hex: string): string {
  const tx = decodeTxHex(hex);
  const sig = Buffer.from(tx.inputs[0]!.witness[0]!, 'hex');
  const lenR = sig[3]!;
  const r = sig.subarray(4, 4 + lenR);
  const s = BigInt(`0x${sig.subarray(6 + lenR, sig.length - 1).toString('hex')}`);
  let high = (CURVE_ORDER - s).toString(16).padStart(64, '0');
  if (parseInt(high.slice(0, 2), 16) >= 0x80) high = `00${high}`;
  const sBytes = Buffer.from(high, 'hex');
  const body = Buffer.concat([Buffer.from([0x02, r.length]), r, Buffer.from([0x02, sBytes.length]), sBytes]);
  const der = Buffer.concat([Buffer.from([0x30, body.length]), body, sig.subarray(sig.length - 1)]);
  const inputs = tx.inputs.map((input, i) => (i === 0 ? { ...input, witness: [der.toString('hex'), ...input.witness.slice(1)] } : input));
  return encodeTxHex({ ...tx, inputs });
}
