import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from '../dev/bitcoin/node-launcher.ts';
import { poolNodeP2pArgs } from '../dev/bitcoin/policy-node.ts';
import { startTestPolicyNode, type TestPolicyNode } from './helpers/policy-node.ts';
import { decodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { type RpcClient } from '../src/bitcoin/rpc-client.ts';
import { DEFAULT_BYTES_PER_SIGOP } from '@slipstream/mempool-engine/bitcoin/virtual-size';
import type { ApiError } from '../src/http/errors.ts';
import { createEngineMarketSource } from '../src/modules/pricing/market-rate.ts';
import { offerParents, offeredBy, OFFERED_BYTES_PER_ADDRESS, OFFERED_PARENTS_PER_ADDRESS } from '../src/modules/submission/offered-parents.repository.ts';
import { createRpcPublicMempool } from '../src/modules/submission/public-mempool.ts';
import { createSubmissionService, FEE_TOO_LOW_MESSAGE, MISSING_INPUTS_MESSAGE } from '../src/modules/submission/submission.service.ts';
import { recording } from './helpers/call-trace.ts';
import { startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';
import { get, quietLog, startTestApp, type TestApp } from './helpers/test-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { until } from './helpers/until.ts';

/**
 * Child pays for parent with a parent the portal did not submit. The pool's
 * mempool stays private until mined (docs/behaviour.md#private-until-mined), so a child is
 * priced only with a parent that is public (the public network's mempool
 * holds it: PUBLIC_MEMPOOL_RPC_URL, here a second node following the pool
 * node's chain that hears none of its transactions) or that its submitter
 * gave: before the child (a refused submit-tx or a parse), or in the same
 * package. A parent below the minimum enters with its child as a package
 * when the two clear the minimum together, and both status answers say so.
 * A private parent (sent straight to the pool's node) is still answered as
 * an unknown outpoint, by the same calls.
 */

interface ParsedItem {
  txid: string;
  fee: number | null;
  functional_rate: number | null;
  meets_minimum_fee: boolean | null;
  message: string;
}
interface Answer {
  status: string;
  message: string;
  transactions?: ParsedItem[];
  result?: { package_msg: string; 'tx-results': Record<string, { txid: string; error?: string }> };
}
interface StatusBody {
  state: string;
  child_pays_for_parent?: { pays_for: string[]; paid_by: string[]; message: string } | null;
}

let pool: TestNode;
let publicNode: TestPolicyNode;
let publicRpc: RpcClient;

before(async () => {
  const p2pPort = await freePort();
  pool = await startTestNode({ extraArgs: poolNodeP2pArgs(p2pPort) });
  await pool.ensureUtxos(40);
  // Follows the pool node's chain and takes none of its transactions (-blocksonly): what it holds, it was given in public.
  publicNode = await startTestPolicyNode(p2pPort);
  publicRpc = publicNode.rpc;
});

after(async () => {
  await publicNode?.stop();
  await pool?.stop();
});

/** Waits until the public node has the pool node's chain, so that it takes transactions spending its coins. */
async function publicInSync(): Promise<void> {
  const tip = await pool.rpc.call<string>('getbestblockhash');
  await until(async () => (await publicRpc.call<string>('getbestblockhash')) === tip, async () => `public node at ${await publicRpc.call<number>('getblockcount')}, pool at ${await pool.rpc.call<number>('getblockcount')}`, 60_000);
}

const inMempool = async (rpc: RpcClient, txid: string) => (await rpc.call<string[]>('getrawmempool')).includes(txid);

for (const engine of testDatabases()) {
  describe(`child pays for parent with a public or given parent (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;

    before(async () => {
      db = await engine.open();
      t = await startTestApp(pool, db, { publicMempool: createRpcPublicMempool(publicRpc) });
      await publicInSync();
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    /** A request from one client address (the app sees it as request.ip). */
    const from = (address: string) => async (url: string, body: unknown) => {
      const res = await t.app.inject({ method: 'POST', url, payload: body as object, remoteAddress: address });
      return { statusCode: res.statusCode, body: res.json<Answer>() };
    };
    const alice = from('198.51.100.7');
    const bob = from('203.0.113.9');
    const statusOf = async (txid: string) => get<StatusBody>(t.app, `/rest-api/status-check?tx_id=${txid}`);
    /** A parent at 1 sat/vB (the node takes it, the portal's minimum is 2) and a child paying for both. */
    const pair = async (): Promise<[BuiltTx, BuiltTx]> => {
      const parent = await pool.buildTx({ feeRate: 1 });
      const child = await pool.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 12 });
      return [parent, child];
    };
    const packageRate = (parent: BuiltTx, child: BuiltTx) => (parent.fee + child.fee) / (parent.vsize + child.vsize);

    test('a public parent: the child is priced with it and accepted on its own', async () => {
      const [parent, child] = await pair();
      await publicRpc.call('sendrawtransaction', [parent.hex]);
      await pool.rpc.call('sendrawtransaction', [parent.hex]);

      const [priced] = (await alice('/rest-api/parse-tx', { tx_hexes: [child.hex] })).body.transactions!;
      assert.equal(priced!.fee, child.fee);
      assert.ok(Math.abs(priced!.functional_rate! - packageRate(parent, child)) < 1e-9, `functional ${priced!.functional_rate}, package ${packageRate(parent, child)}`);
      assert.equal(priced!.meets_minimum_fee, true);

      const sent = await bob('/rest-api/submit-tx', { tx_hex: child.hex });
      assert.deepEqual([sent.statusCode, sent.body.message], [200, child.txid]);
      assert.ok(await inMempool(pool.rpc, child.txid));
    });

    test('a parent given first (refused as below the minimum), then its child: both enter as a package, and both status pages say so', async () => {
      const [parent, child] = await pair();
      const refused = await alice('/rest-api/submit-tx', { tx_hex: parent.hex });
      assert.deepEqual([refused.statusCode, refused.body.message], [422, FEE_TOO_LOW_MESSAGE]);
      assert.equal(await inMempool(pool.rpc, parent.txid), false, 'a parent below the minimum does not enter alone');

      // Someone else cannot use it: to them it is an unknown outpoint.
      const [stranger] = (await bob('/rest-api/parse-tx', { tx_hexes: [child.hex] })).body.transactions!;
      assert.equal(stranger!.fee, null);
      assert.deepEqual(await bob('/rest-api/submit-tx', { tx_hex: child.hex }), { statusCode: 422, body: { status: 'error', message: MISSING_INPUTS_MESSAGE } });

      const [priced] = (await alice('/rest-api/parse-tx', { tx_hexes: [child.hex] })).body.transactions!;
      assert.equal(priced!.meets_minimum_fee, true);
      assert.ok(Math.abs(priced!.functional_rate! - packageRate(parent, child)) < 1e-9);

      const sent = await alice('/rest-api/submit-tx', { tx_hex: child.hex });
      assert.deepEqual([sent.statusCode, sent.body.message], [200, child.txid]);
      assert.ok(await inMempool(pool.rpc, parent.txid));
      assert.ok(await inMempool(pool.rpc, child.txid));
      await t.records.idle();

      const ofParent = await statusOf(parent.txid);
      const ofChild = await statusOf(child.txid);
      assert.equal(ofParent.statusCode, 200);
      assert.equal(ofChild.statusCode, 200);
      assert.deepEqual(ofParent.body.child_pays_for_parent && { paid_by: ofParent.body.child_pays_for_parent.paid_by, pays_for: ofParent.body.child_pays_for_parent.pays_for }, { paid_by: [child.txid], pays_for: [] });
      assert.deepEqual(ofChild.body.child_pays_for_parent && { paid_by: ofChild.body.child_pays_for_parent.paid_by, pays_for: ofChild.body.child_pays_for_parent.pays_for }, { paid_by: [], pays_for: [parent.txid] });
      assert.match(ofParent.body.child_pays_for_parent!.message, /child/i);
    });

    test('a parent shown in a parse only, then its child', async () => {
      const [parent, child] = await pair();
      const [shown] = (await alice('/rest-api/parse-tx', { tx_hexes: [parent.hex] })).body.transactions!;
      assert.equal(shown!.meets_minimum_fee, false);
      const sent = await alice('/rest-api/submit-tx', { tx_hex: child.hex });
      assert.deepEqual([sent.statusCode, sent.body.message], [200, child.txid]);
      assert.ok(await inMempool(pool.rpc, parent.txid));
    });

    test('both in one paste: a package whose child pays for its parent below the minimum', async () => {
      const [parent, child] = await pair();
      const parsed = (await alice('/rest-api/parse-tx', { tx_hexes: [parent.hex, child.hex] })).body.transactions!;
      assert.deepEqual(parsed.map((p) => p.meets_minimum_fee), [true, true], 'the parent clears it with its child');

      const sent = await bob('/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex] });
      assert.equal(sent.statusCode, 200, JSON.stringify(sent.body));
      assert.equal(sent.body.result!.package_msg, 'success');
      assert.ok(await inMempool(pool.rpc, parent.txid));
      await t.records.idle();
      assert.deepEqual((await statusOf(parent.txid)).body.child_pays_for_parent?.paid_by, [child.txid]);
      assert.deepEqual((await statusOf(child.txid)).body.child_pays_for_parent?.pays_for, [parent.txid]);

      // The public API's package route takes it too.
      const [parent2, child2] = await pair();
      const api = await bob('/api/transactions/packages', { tx_hexes: [parent2.hex, child2.hex] });
      assert.equal(api.statusCode, 200, JSON.stringify(api.body));
      assert.ok(await inMempool(pool.rpc, parent2.txid));
    });

    test('a child that does not pay enough for both: refused, and nothing enters', async () => {
      const parent = await pool.buildTx({ feeRate: 0.5 });
      const child = await pool.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 2.5 });
      assert.ok(packageRate(parent, child) < 2);
      const sent = await bob('/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex] });
      assert.equal(sent.statusCode, 422);
      assert.match(sent.body.message, /^Transaction 1 of the package pays too low a fee/);
      assert.match(sent.body.message, /spend it/);
      assert.equal(await inMempool(pool.rpc, parent.txid), false);

      await alice('/rest-api/submit-tx', { tx_hex: parent.hex });
      assert.deepEqual((await alice('/rest-api/submit-tx', { tx_hex: child.hex })).body.message, FEE_TOO_LOW_MESSAGE);
      assert.equal(await inMempool(pool.rpc, parent.txid), false);
    });

    test('a given parent whose child the node refuses does not enter alone', async () => {
      const parent = await pool.buildTx({ feeRate: 1 });
      // Spends the parent's output, but with a made-up signature: the node refuses it.
      const good = await pool.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 12 });
      const decoded = decodeTxHex(good.hex);
      assert.ok(decoded.inputs[0]!.witness.length > 0);
      const badHex = good.hex.replace(decoded.inputs[0]!.witness[0]!, `${decoded.inputs[0]!.witness[0]!.slice(0, -4)}0101`);
      const sent = await bob('/rest-api/submit-package', { tx_hexes: [parent.hex, badHex] });
      assert.equal(sent.statusCode, 422, JSON.stringify(sent.body));
      assert.equal(await inMempool(pool.rpc, parent.txid), false, 'the parent stays out: it pays less than the minimum');
    });

    test('a private parent (sent straight to the node) is still an unknown outpoint, by the same calls, with a public node configured', async () => {
      const hidden = await pool.buildTx({ feeRate: 1 });
      await pool.rpc.call('sendrawtransaction', [hidden.hex]);
      // Built and never sent: a parent nobody has.
      const unknown = await pool.buildTx({ feeRate: 1 });
      const traces: string[][] = [];
      const answers: unknown[] = [];
      for (const [parentHex, txid] of [[hidden.hex, hidden.txid], [unknown.hex, unknown.txid], [hidden.hex, hidden.txid]] as const) {
        const child = await pool.buildChild({ parentHex, vout: 0, feeRate: 12 });
        const trace: string[] = [];
        const own = { [child.txid]: 'CHILD' };
        const service = createSubmissionService({
          db: recording(db, 'db', trace, txid, own),
          rpc: recording(t.rpc, 'rpc', trace, txid, own),
          publicMempool: createRpcPublicMempool(recording(publicRpc, 'public', trace, txid, own)),
          market: createEngineMarketSource(t.mempool),
          settings: t.settings,
          records: t.records,
          // One instant for all three: the offers a child is priced with are asked "as of now".
          clock: { now: () => new Date('2030-01-01T00:00:00Z') },
          log: quietLog,
          bytesPerSigop: DEFAULT_BYTES_PER_SIGOP,
        });
        const parsed = await service.parse([child.hex], undefined, { clientAddress: '192.0.2.1' });
        const refusal = await service.submitTx(child.hex, undefined, { clientAddress: '192.0.2.1' }).then(() => assert.fail('accepted'), (error: ApiError) => [error.statusCode, error.message]);
        answers.push({ fee: parsed.transactions[0]!.fee, message: parsed.transactions[0]!.message, refusal });
        traces.push(trace);
      }
      assert.deepEqual(answers[0], answers[1]);
      assert.deepEqual(answers[0], { fee: null, message: 'Some inputs spend outputs the mining node does not know, so the fee is unknown.', refusal: [422, MISSING_INPUTS_MESSAGE] });
      assert.ok(traces[0]!.some((call) => call.startsWith('public')), 'the public node was asked');
      assert.deepEqual(traces[0], traces[1], 'the same calls to the database, the pool node and the public node');
      assert.deepEqual(traces[2], traces[1]);
      assert.equal(traces[0]!.some((call) => call.startsWith('rpc') && /getmempoolentry|getrawtransaction|testmempoolaccept|sendrawtransaction|submitpackage/.test(call) && call.includes('TXID')), false, 'the pool node is not asked about it');
    });

    test('offered parents are bounded per client address: the newest few, by count and by bytes, for a day', async () => {
      const now = new Date('2030-01-01T00:00:00Z');
      const hexOf = (i: number, bytes: number) => ({ txid: i.toString(16).padStart(64, '0'), hex: 'ab'.repeat(bytes) });
      const many = Array.from({ length: OFFERED_PARENTS_PER_ADDRESS + 5 }, (_, i) => hexOf(i + 1, 100));
      for (const [i, offer] of many.entries()) await offerParents(db, '2001:db8:1:2::7', [offer], new Date(now.getTime() + i * 1000));
      const later = new Date(now.getTime() + many.length * 1000);
      // Another address of the same /64 shares the quota and sees the same offers.
      const kept = await offeredBy(db, '2001:db8:1:2::99', many.map((o) => o.txid), later);
      assert.deepEqual([...kept.keys()].sort(), many.slice(-OFFERED_PARENTS_PER_ADDRESS).map((o) => o.txid).sort());
      assert.equal((await offeredBy(db, '2001:db8:1:3::7', many.map((o) => o.txid), later)).size, 0, 'another /64 sees none of them');

      const big = hexOf(500, OFFERED_BYTES_PER_ADDRESS - 150);
      await offerParents(db, '2001:db8:1:2::7', [big], later);
      const afterBig = await offeredBy(db, '2001:db8:1:2::7', [big.txid, ...many.map((o) => o.txid)], later);
      assert.deepEqual([...afterBig.keys()].sort(), [big.txid, many.at(-1)!.txid].sort(), 'older ones make room, by bytes');
      await offerParents(db, '2001:db8:1:2::7', [hexOf(501, OFFERED_BYTES_PER_ADDRESS + 1)], later);
      assert.equal((await offeredBy(db, '2001:db8:1:2::7', [hexOf(501, 1).txid], later)).size, 0, 'one larger than the cap is not kept');

      const nextDay = new Date(later.getTime() + 24 * 3600 * 1000 + 1);
      assert.equal((await offeredBy(db, '2001:db8:1:2::7', [big.txid], nextDay)).size, 0, 'expired after a day');
      await offerParents(db, '198.51.100.200', [hexOf(777, 10)], nextDay);
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM offered_parents WHERE client_address = '2001:db8:1:2::/64'");
      assert.equal(rows[0]!.n, 0, 'and removed by the next offer');
    });
  });
}
