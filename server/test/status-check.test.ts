import { ASK_THE_DATABASE } from '../src/modules/submission/portal-txid-index.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import type { ApiError } from '../src/http/errors.ts';
import { REMOVAL_MESSAGES } from '../src/modules/status/removal-finder.ts';
import type { StatusResponse } from '../src/modules/status/status.schemas.ts';
import { createStatusService } from '../src/modules/status/status.service.ts';
import { fillRandomMempool } from './helpers/random-mempool.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, quietLog, startTestApp, type TestApp } from './helpers/test-app.ts';
import { recording } from './helpers/call-trace.ts';
import { until } from './helpers/until.ts';

/**
 * GET /rest-api/status-check end to end, on a real node whose mempool spans
 * several blocks: the complete Tx status response (docs/behaviour.md#data-shapes) with
 * the engine's position and functional rate, the rate to beat, and the
 * pool's odds from the settings; confirmation with block hash, height and
 * time; and what became of a transaction that left (replaced, naming the
 * replacement; conflicted; evicted; or just gone). The pool's mempool is
 * private (docs/behaviour.md#private-until-mined): a transaction the portal did not record is
 * not found until it is mined, however the node came by it.
 */

interface MempoolEntry {
  vsize: number;
  weight: number;
  time: number;
  fees: { base: number };
}

let node: TestNode;
before(async () => {
  node = await startTestNode({ extraArgs: ['-checkmempool=0'] });
  await node.ensureUtxos(30);
});
after(async () => node?.stop());

/** Records `txid` as the portal records a submission that failed (here: timed out while the node took it). */
async function recordFailedAttempt(t: TestApp, txid: string, hex: string): Promise<void> {
  await t.db.query(`INSERT INTO failed_txs (txid, tx_hex, status, errors) VALUES ($1, $2, 'Timeout', ARRAY['The node did not answer in time'])`, [txid, hex]);
  await t.heard([txid]);
}

/** Mines until the mempool is empty: the next test starts with the relay minimum as the market rate. */
async function emptyMempool(): Promise<void> {
  while ((await node.rpc.call<{ size: number }>('getmempoolinfo')).size > 0) await node.mine(1);
}

const status = (t: TestApp, txid: string) => get<StatusResponse & { status?: string; message?: string }>(t.app, `/rest-api/status-check?tx_id=${txid}`);

for (const engine of testDatabases()) {
  describe(`status-check (${engine.name})`, () => {
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

    test('in a mempool of several blocks: a well-paying transaction is in block 0, a cheap one further back, every field filled', async () => {
      await fillRandomMempool(node, { seed: engine.name === 'pglite' ? 31 : 32, payments: 300, large: 60, sigopHeavy: 0, prioritised: 0 });
      const rich = await node.buildTx({ feeRate: 300 });
      const submitted = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: rich.hex });
      assert.equal(submitted.body.status, 'success', submitted.body.message);
      // The cheap one reaches the node directly (the portal would refuse its fee); the portal holds it only as a
      // failed attempt (one that timed out while the node took it), which is enough for it to answer.
      const cheap = await node.buildTx({ feeRate: 1 });
      await node.rpc.call('sendrawtransaction', [cheap.hex]);
      await recordFailedAttempt(t, cheap.txid, cheap.hex);

      const view = await t.mempool.view();
      assert.ok(view.blocks.length >= 3, `${view.blocks.length} projected blocks`);
      assert.equal(view.nextBlockFull, true);

      const res = await status(t, rich.txid);
      assert.equal(res.statusCode, 200);
      const entry = await node.rpc.call<MempoolEntry>('getmempoolentry', [rich.txid]);
      // First seen: when the portal accepted it (its submission row), not the node's entry time.
      const accepted = (await db.query<{ at: Date }>('SELECT created_at AS at FROM tx_submissions WHERE txid = $1', [rich.txid])).rows[0]!.at;
      const firstSeen = Math.floor(accepted.getTime() / 1000);
      const body = res.body;
      assert.equal(body.state, 'in_mempool');
      assert.deepEqual(
        { ...body.transaction, position: { block: body.transaction.position.block } },
        {
          txid: rich.txid,
          weight: entry.weight,
          fee: btcToSats(entry.fees.base),
          size: rich.hex.length / 2,
          vsize: entry.vsize,
          firstSeen,
          position: { block: 0 },
          status: { confirmed: false, block_hash: null, block_height: null, block_time: null },
        },
      );
      assert.ok(body.transaction.position.vsize! >= entry.vsize && body.transaction.position.vsize! <= view.blocks[0]!.vsize);
      assert.ok(Math.abs(body.functional_rate! - rich.fee / rich.vsize) < 1e-9, `functional rate ${body.functional_rate}`);
      assert.ok(body.market_rate! > 1 && body.market_rate! < body.functional_rate!, `market rate ${body.market_rate}`);
      assert.equal(body.market_rate, view.blocks[0]!.minRate, 'the rate to beat is block 0\'s lowest functional rate');
      assert.deepEqual([body.last_24h_odds, body.last_7d_odds, body.expected_next_block_seconds], [100, 100, 600], 'regtest: every block is the pool\'s');
      assert.equal(body.removal, null);

      const behind = await status(t, cheap.txid);
      assert.equal(behind.statusCode, 200);
      assert.equal(behind.body.state, 'in_mempool');
      assert.ok(behind.body.transaction.position.block! > 0, `cheap one in block ${behind.body.transaction.position.block}`);
      assert.ok(behind.body.functional_rate! < behind.body.market_rate!);
      assert.equal(behind.body.transaction.size, cheap.hex.length / 2, 'its size from the node, as the portal recorded no submission of it');

      // Asked again (a status page polling): answered from the engine and the remembered size, the same answer.
      for (const [txid, first] of [[rich.txid, body], [cheap.txid, behind.body]] as const) {
        const again = await status(t, txid);
        assert.equal(again.statusCode, 200);
        assert.deepEqual(again.body, first, `the second answer for ${txid}`);
      }

      // Mined: the block's hash, height and time.
      const [hash] = await node.mine(1);
      const header = await node.rpc.call<{ height: number; time: number }>('getblockheader', [hash]);
      const mined = await status(t, rich.txid);
      assert.equal(mined.body.state, 'confirmed');
      assert.deepEqual(mined.body.transaction.status, { confirmed: true, block_hash: hash, block_height: header.height, block_time: header.time });
      assert.equal(mined.body.transaction.fee, rich.fee);
      assert.equal(mined.body.transaction.position.block, null);
      assert.equal(mined.body.transaction.firstSeen, firstSeen);
    });

    test('odds follow the pool settings: none recognised by a tag never mined, a share by payout address', async () => {
      await emptyMempool();
      const tx = await node.buildTx({ feeRate: 5 });
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex })).body.status, 'success');
      await t.setSetting('pool_coinbase_tag', '/NeverMinedHere/');
      try {
        const none = await status(t, tx.txid);
        assert.deepEqual([none.body.last_24h_odds, none.body.last_7d_odds, none.body.expected_next_block_seconds], [0, 0, null]);
        await t.setSetting('pool_coinbase_tag', '');
        const payout = await node.address('bech32');
        await t.setSetting('pool_payout_addresses', `bc1qsomeoneelse, ${payout}`);
        await node.rpc.call('generatetoaddress', [3, payout]);
        const height = await node.rpc.call<number>('getblockcount');
        const share = await status(t, tx.txid);
        const expected24 = Math.round((10_000 * 3) / Math.min(144, height + 1)) / 100;
        const expected7 = Math.round((10_000 * 3) / Math.min(1_008, height + 1)) / 100;
        assert.deepEqual([share.body.last_24h_odds, share.body.last_7d_odds], [expected24, expected7]);
        assert.equal(share.body.expected_next_block_seconds, Math.round(600 / (expected24 / 100)));
        assert.equal(share.body.state, 'confirmed');
      } finally {
        await t.setSetting('pool_coinbase_tag', '');
        await t.setSetting('pool_payout_addresses', '');
      }
      assert.equal((await status(t, tx.txid)).body.last_24h_odds, 100);
    });

    test('replaced: named by its replacement submitted here, still after the replacement is mined', async () => {
      await emptyMempool();
      const original = await node.buildTx({ feeRate: 4 });
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: original.hex })).body.status, 'success');
      await t.records.idle();
      const replacement = await node.buildReplacement(original.hex, 20);
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: replacement.hex })).body.status, 'success');
      await t.records.idle();

      const res = await status(t, original.txid);
      assert.equal(res.statusCode, 200);
      assert.equal(res.body.state, 'not_in_mempool');
      assert.deepEqual(res.body.removal, { reason: 'replaced', replaced_by: replacement.txid, message: REMOVAL_MESSAGES.replaced });
      assert.equal(res.body.transaction.fee, original.fee);
      assert.equal(res.body.transaction.position.block, null);
      const { rows } = await db.query<{ status: string; replaced_by: string }>('SELECT status, replaced_by FROM tx_submissions WHERE txid = $1', [original.txid]);
      assert.deepEqual(rows[0], { status: 'replaced', replaced_by: replacement.txid });

      await node.mine(1);
      const later = await status(t, original.txid);
      assert.deepEqual(later.body.removal, { reason: 'replaced', replaced_by: replacement.txid, message: REMOVAL_MESSAGES.replaced }, 'remembered once no RPC can name it');
      assert.equal((await status(t, replacement.txid)).body.state, 'confirmed');
    });

    test('conflicted: a block took another transaction spending its inputs', async () => {
      await emptyMempool();
      const original = await node.buildTx({ feeRate: 4 });
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: original.hex })).body.status, 'success');
      await t.records.idle();
      // A double spend mined straight into a block, never in the mempool: nothing names it.
      const conflict = await node.buildReplacement(original.hex, 8);
      await node.rpc.call('generateblock', [await node.address(), [conflict.hex]]);
      const res = await status(t, original.txid);
      assert.equal(res.body.state, 'not_in_mempool');
      assert.deepEqual(res.body.removal, { reason: 'conflicted', replaced_by: null, message: REMOVAL_MESSAGES.conflicted });
    });

    test('evicted: recorded, gone from the mempool, its inputs unspent', async () => {
      await emptyMempool();
      // The state eviction leaves behind (expiry or a full mempool), made directly: recorded, never held by the node.
      const tx = await node.buildTx({ feeRate: 4 });
      const decoded = decodeTxHex(tx.hex);
      await db.query(
        `INSERT INTO tx_submissions (txid, wtxid, tx_hex, size, vsize, weight, fee, fee_rate, functional_rate, market_rate, threshold_rate, multiplier, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 4, 4, 1, 2, 4, now() - interval '3 days')`,
        [tx.txid, decoded.wtxid, tx.hex, decoded.size, tx.vsize, decoded.weight, tx.fee],
      );
      await t.heard([tx.txid]);
      const res = await status(t, tx.txid);
      assert.equal(res.body.state, 'not_in_mempool');
      assert.deepEqual(res.body.removal, { reason: 'evicted', replaced_by: null, message: REMOVAL_MESSAGES.evicted });
      assert.equal(res.body.transaction.size, decoded.size);
    });

    test('recorded only as a failed attempt, then gone: said so, with what the engine remembers', async () => {
      await emptyMempool();
      const original = await node.buildTx({ feeRate: 4 });
      await node.rpc.call('sendrawtransaction', [original.hex]);
      await recordFailedAttempt(t, original.txid, original.hex);
      assert.equal((await status(t, original.txid)).body.state, 'in_mempool');
      const replacement = await node.buildReplacement(original.hex, 20);
      await node.rpc.call('sendrawtransaction', [replacement.hex]);
      const res = await status(t, original.txid);
      assert.equal(res.statusCode, 200);
      assert.equal(res.body.state, 'not_in_mempool');
      assert.deepEqual(res.body.removal, { reason: 'unknown', replaced_by: null, message: REMOVAL_MESSAGES.unknown });
      assert.equal(res.body.transaction.fee, original.fee);
      assert.equal(res.body.transaction.vsize, original.vsize);
      // Unknown to the node, the engine and the portal alike: 404.
      const stranger = decodeTxHex(encodeTxHex({ ...decodeTxHex(original.hex), locktime: 77 })).txid;
      assert.equal((await status(t, stranger)).statusCode, 404);
    });

    test('private until mined: a transaction the portal did not record answers as an unknown txid does, in the mempool or gone from it', async () => {
      await emptyMempool();
      const direct = await node.buildTx({ feeRate: 6 });
      await node.rpc.call('sendrawtransaction', [direct.hex]);
      const submitted = await node.buildTx({ feeRate: 6 });
      assert.equal((await post<{ status: string }>(t.app, '/rest-api/submit-tx', { tx_hex: submitted.hex })).body.status, 'success');
      const parent = await node.buildTx({ feeRate: 3 });
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 8 });
      const packaged = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex] });
      assert.equal(packaged.body.status, 'success', packaged.body.message);
      assert.ok((await node.rpc.call<string[]>('getrawmempool')).includes(direct.txid), 'the node holds the direct one');

      const stranger = decodeTxHex(encodeTxHex({ ...decodeTxHex(direct.hex), locktime: 91 })).txid;
      const unknown = await status(t, stranger);
      assert.equal(unknown.statusCode, 404);
      const hidden = await status(t, direct.txid);
      assert.deepEqual({ statusCode: hidden.statusCode, body: hidden.body }, { statusCode: unknown.statusCode, body: unknown.body });
      assert.equal(hidden.headers['content-length'], unknown.headers['content-length']);
      // Asked twice (a memo must not start answering for it either).
      assert.deepEqual((await status(t, direct.txid)).body, unknown.body);

      // The portal's own: a submission and both members of a package.
      for (const tx of [submitted, parent, child]) {
        const res = await status(t, tx.txid);
        assert.equal(res.statusCode, 200, `${tx.txid}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.state, 'in_mempool');
      }

      // Replaced by another transaction sent straight to the node: the engine remembers it left; still nobody's business.
      const quiet = await node.buildTx({ feeRate: 4 });
      await node.rpc.call('sendrawtransaction', [quiet.hex]);
      await node.rpc.call('sendrawtransaction', [(await node.buildReplacement(quiet.hex, 20)).hex]);
      await t.mempool.view();
      assert.ok(t.mempool.removal(quiet.txid), 'the engine remembers it left');
      const gone = await status(t, quiet.txid);
      assert.deepEqual({ statusCode: gone.statusCode, body: gone.body }, { statusCode: unknown.statusCode, body: unknown.body });

      // Mined, it is public: the block's hash, height and time.
      const [hash] = await node.mine(1);
      const header = await node.rpc.call<{ height: number; time: number }>('getblockheader', [hash]);
      const mined = await status(t, direct.txid);
      assert.equal(mined.statusCode, 200);
      assert.equal(mined.body.state, 'confirmed');
      assert.deepEqual(mined.body.transaction.status, { confirmed: true, block_hash: hash, block_height: header.height, block_time: header.time });
      assert.equal(mined.body.transaction.fee, direct.fee);
      // When it entered the private mempool is the pool's to keep: the chain says only when it was mined.
      assert.equal(mined.body.transaction.firstSeen, null);
    });

    test('first seen is when the portal accepted it, not when the node got it through another channel', async () => {
      await emptyMempool();
      const tx = await node.buildTx({ feeRate: 6 });
      const parent = await node.buildTx({ feeRate: 3 });
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 8 });
      // Sent straight to the node an hour "earlier" (the node's clock held back), so its entry time is far from now.
      const nodeNow = (await node.rpc.call<{ time: number }>('getblockheader', [await node.rpc.call<string>('getbestblockhash')])).time;
      const hourAgo = Math.min(nodeNow, Math.floor(Date.now() / 1000)) - 3600;
      await node.rpc.call('setmocktime', [hourAgo]);
      try {
        for (const hex of [tx.hex, parent.hex, child.hex]) await node.rpc.call('sendrawtransaction', [hex]);
      } finally {
        await node.rpc.call('setmocktime', [0]);
      }
      const entry = await node.rpc.call<MempoolEntry>('getmempoolentry', [tx.txid]);
      assert.equal(entry.time, hourAgo, 'the node took it an hour before the portal');
      // The engine holds it too, with the node's time, before anyone submits it here.
      await until(async () => (await t.mempool.view()).transaction(child.txid)?.projected === true, async () => 'the engine projects them');

      const before = Math.floor(Date.now() / 1000);
      const submitted = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.equal(submitted.body.status, 'success', submitted.body.message);
      const packaged = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex] });
      assert.equal(packaged.body.status, 'success', packaged.body.message);
      await t.records.idle();
      const seconds = async (sql: string, txid: string) => Math.floor(((await db.query<{ at: Date }>(sql, [txid])).rows[0]!.at).getTime() / 1000);
      const accepted = await seconds('SELECT created_at AS at FROM tx_submissions WHERE txid = $1', tx.txid);
      const packagedAt = await seconds('SELECT created_at AS at FROM package_submissions WHERE txids @> ARRAY[$1]::text[]', parent.txid);
      assert.ok(accepted >= before && packagedAt >= before, `recorded at ${accepted} and ${packagedAt}, submitted from ${before}`);

      for (const [txid, portalTime] of [[tx.txid, accepted], [parent.txid, packagedAt], [child.txid, packagedAt]] as const) {
        const first = await status(t, txid);
        assert.equal(first.body.state, 'in_mempool');
        assert.equal(first.body.transaction.firstSeen, portalTime, `${txid}: the portal's acceptance, not the node's ${entry.time}`);
        // Asked again: answered from what the service remembers, the same time.
        assert.equal((await status(t, txid)).body.transaction.firstSeen, portalTime);
        const publicAnswer = await get<{ first_seen: number | null }>(t.app, `/api/transactions/status?tx_id=${txid}`);
        assert.equal(publicAnswer.body.first_seen, portalTime);
      }

      // Mined: still the portal's time, although the engine remembers the node's.
      await node.mine(1);
      await t.mempool.view();
      for (const [txid, portalTime] of [[tx.txid, accepted], [child.txid, packagedAt]] as const) {
        const mined = await status(t, txid);
        assert.equal(mined.body.state, 'confirmed');
        assert.equal(mined.body.transaction.firstSeen, portalTime, `${txid} once mined`);
      }
    });

    test('mined straight into a block, never in a mempool the portal saw: found in the chain', async () => {
      await emptyMempool();
      const tx = await node.buildTx({ feeRate: 3 });
      const { hash } = await node.rpc.call<{ hash: string }>('generateblock', [await node.address(), [tx.hex]]);
      const res = await status(t, tx.txid);
      assert.equal(res.statusCode, 200, JSON.stringify(res.body));
      assert.equal(res.body.state, 'confirmed');
      assert.equal(res.body.transaction.status.block_hash, hash);
      assert.equal(res.body.transaction.txid, tx.txid);
    });

    test('moved by a one-block reorganisation to another block, never back in the mempool: found in its new block', async () => {
      await emptyMempool();
      const direct = await node.buildTx({ feeRate: 6 });
      await node.rpc.call('sendrawtransaction', [direct.hex]);
      await t.mempool.view();
      // The longer branch first: B takes it, C on top; then back to the fork point, and A takes it at B's height.
      const { hash: b } = await node.rpc.call<{ hash: string }>('generateblock', [await node.address(), [direct.txid]]);
      await node.rpc.call('generateblock', [await node.address(), []]);
      await node.rpc.call('invalidateblock', [b]);
      await until(async () => (await t.mempool.view()).transaction(direct.txid) !== undefined, async () => 'the engine sees it back in the mempool');
      const { hash: a } = await node.rpc.call<{ hash: string }>('generateblock', [await node.address('bech32m'), [direct.txid]]);
      await until(async () => (await t.mempool.view(), t.mempool.removal(direct.txid)?.blockHash === a), async () => `removal ${JSON.stringify(t.mempool.removal(direct.txid))}, A ${a}`);
      // B and C back: the node moves to the longer branch at once, the transaction from A to B without re-entering the mempool.
      await node.rpc.call('reconsiderblock', [b]);
      assert.equal((await node.rpc.call<{ blockhash: string }>('getrawtransaction', [direct.txid, 1])).blockhash, b);
      await t.mempool.view();
      assert.equal(t.mempool.removal(direct.txid)?.blockHash, a, 'the engine still remembers A');

      const res = await status(t, direct.txid);
      assert.equal(res.statusCode, 200, JSON.stringify(res.body));
      assert.equal(res.body.state, 'confirmed');
      assert.equal(res.body.transaction.status.block_hash, b);
    });

    test('for a transaction the portal did not record, the service does the same work whether or not the node holds it', async () => {
      await emptyMempool();
      const direct = await node.buildTx({ feeRate: 6 });
      await node.rpc.call('sendrawtransaction', [direct.hex]);
      await t.mempool.view();
      const stranger = decodeTxHex(encodeTxHex({ ...decodeTxHex(direct.hex), locktime: 93 })).txid;
      const traces: string[][] = [];
      for (const txid of [direct.txid, stranger, direct.txid]) {
        const trace: string[] = [];
        const service = createStatusService({
          db: recording(db, 'db', trace, txid),
          rpc: recording(t.rpc, 'rpc', trace, txid),
          mempool: recording(t.mempool, 'mempool', trace, txid),
          log: quietLog,
          portalTxids: ASK_THE_DATABASE,
        });
        await assert.rejects(service.check(txid), (error: ApiError) => error.statusCode === 404);
        traces.push(trace);
      }
      assert.ok(traces[0]!.length > 0);
      assert.deepEqual(traces[0], traces[1], 'the same calls to the database, the node and the engine, with the same arguments');
      assert.deepEqual(traces[2], traces[1], 'and the second time too');
      assert.equal(traces[0]!.some((call) => /getmempoolentry|viewWith|getrawmempool/.test(call)), false, 'nothing that looks into the mempool');
    });
  });
}
