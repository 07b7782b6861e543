import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { RpcTransportError, type RpcClient } from '../src/bitcoin/rpc-client.ts';
import { encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { DEFAULT_FAILURE_STORAGE } from '../src/modules/failed-txs/failed-tx-storage.ts';
import { deleteExpiredFailedTxs } from '../src/modules/failed-txs/failed-txs.repository.ts';
import { queueRetries } from '../src/modules/failed-txs/failed-txs-retry.repository.ts';
import { MAX_KEPT_ERRORS, recordFailure } from '../src/modules/failed-txs/failed-txs.repository.ts';
import type { App } from '../src/app.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { fundCoins, signedSpend, type WalletCoin } from './helpers/signed-spends.ts';
import { nodeRpc, startTestApp, type TestApp } from './helpers/test-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { until } from './helpers/until.ts';

/**
 * What strangers can make the portal store as failed submissions. The node
 * says "non-final" (or a full mempool, or chain limits) before it runs any
 * script, so those refusals say nothing about signatures: junk that is
 * unsigned, non-final and stuffed with witness bytes must not be kept,
 * while a properly signed non-final transaction still is, and goes through
 * on a staff retry once final. What one address may store in a day is
 * bounded in rows and bytes, and stored failures expire.
 */

let node: TestNode;
before(async () => {
  node = await startTestNode();
});
after(async () => node?.stop());

const fastJobs = { runner: { pollMs: 100 }, recheckMs: 60_000 };

/** An unsigned spend of a real coin, locked far in the future, whose one witness item is `witnessBytes` of random bytes. */
function junk(coin: WalletCoin, locktime: number, witnessBytes: number): string {
  return encodeTxHex({
    version: 2,
    locktime,
    inputs: [{ txid: coin.txid, vout: coin.vout, scriptSig: '', sequence: 0xffff_fffe, witness: [randomBytes(witnessBytes).toString('hex'), '02'.padEnd(66, '7')] }],
    // Half the coin as fee (0.005 BTC, over 15 sat/vB at 120 kB of witness) clears the portal's minimum.
    outputs: [{ value: coin.sats / 2, scriptPubKey: coin.scriptPubKey }],
  });
}

async function submit(app: App, hex: string, remoteAddress = '203.0.113.7'): Promise<{ statusCode: number; message: string }> {
  const res = await app.inject({ method: 'POST', url: '/rest-api/submit-tx', payload: { tx_hex: hex }, remoteAddress });
  return { statusCode: res.statusCode, message: res.json<{ message: string }>().message };
}

for (const engine of testDatabases()) {
  describe(`failed submissions kept for retry (${engine.name})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
    });
    after(async () => db?.close());

    const rows = async (txid: string) => (await db.query<{ id: number; status: string; errors: string[]; client_address: string | null }>(
      'SELECT id::int AS id, status, errors, client_address FROM failed_txs WHERE txid = $1 ORDER BY id', [txid])).rows;

    /** Bytes on disk: the failed_txs table, the audit tables, and the whole database. */
    const sizes = async () => (await db.query<{ failed: string; audit: string; database: string }>(
      `SELECT pg_total_relation_size('failed_txs') AS failed,
              pg_total_relation_size('audit_logs') + pg_total_relation_size('audit_log_counts') + pg_total_relation_size('audit_log_hashes') + pg_total_relation_size('audit_chain_head') AS audit,
              pg_database_size(current_database()) AS database`)).rows[0]!;

    test('100 unsigned non-final transactions with a 120 kB witness each store nothing beyond their audit rows', async () => {
      const t = await startTestApp(node, db);
      try {
        const [coin] = await fundCoins(node, ['bech32']);
        const height = await node.rpc.call<number>('getblockcount');
        const first = junk(coin!, height + 1_000, 120_000);
        // The node refuses it for its locktime, before it runs any script: a reason that passes with time.
        const [verdict] = await node.rpc.call<Array<{ 'reject-reason'?: string }>>('testmempoolaccept', [[first]]);
        assert.equal(verdict?.['reject-reason'], 'non-final');

        await t.audit.flush();
        const start = await sizes();
        let hexBytes = 0;
        for (let i = 0; i < 100; i++) {
          const hex = junk(coin!, height + 1_000 + i, 120_000);
          hexBytes += hex.length;
          const res = await submit(t.app, hex);
          assert.equal(res.statusCode, 422, res.message);
        }
        await t.audit.flush();
        const end = await sizes();
        const grew = (key: keyof typeof start, to = end) => Number(to[key]) - Number(start[key]);
        const { rows: [count] } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM failed_txs');
        assert.equal(count?.n, 0, 'no junk row kept');
        // Each request's pending claim in tx_submissions (written while the node
        // decides, deleted on its refusal) leaves dead space until a vacuum, which
        // a server's autovacuum does in time and PGlite never does by itself:
        // what stays is measured after one.
        await db.query('VACUUM');
        const kept = await sizes();
        const beyondAudit = grew('database', kept) - grew('audit', kept);
        console.log(`100 junk requests, ${(hexBytes / 1e6).toFixed(1)} MB of hex sent: failed_txs grew ${grew('failed')} bytes, ` +
          `the audit tables ${grew('audit')} bytes, the database ${grew('database')} bytes before a vacuum and ${grew('database', kept)} after it ` +
          `(${beyondAudit} beyond the audit tables)`);
        assert.ok(beyondAudit < 1_000_000, `the database grew ${beyondAudit} bytes beyond the audit tables`);
      } finally {
        await t.close();
      }
    });

    test('a signed non-final transaction from the wallet is kept, and a staff retry puts it through once final', async () => {
      const t = await startTestApp(node, db, { jobs: fastJobs });
      try {
        const coins = await fundCoins(node, ['bech32', 'bech32m', 'legacy', 'p2sh-segwit']);
        const height = await node.rpc.call<number>('getblockcount');
        const spend = await signedSpend(node, coins, { locktime: height + 3, feeSats: 50_000 });
        const res = await submit(t.app, spend.hex);
        assert.equal(res.statusCode, 422);
        const [row] = await rows(spend.txid);
        assert.equal(row?.status, 'Failed');
        assert.match(row.errors[0]!, /non-final/);
        assert.equal(row.client_address, '203.0.113.7');

        // Final once the chain passes its locktime (a height: final from the block after it).
        await node.mine(3);
        assert.deepEqual((await queueRetries(db, [row.id])).queuedIds, [row.id]);
        await until(async () => (await rows(spend.txid))[0]?.status === 'Resolved', async () => JSON.stringify(await rows(spend.txid)));
        assert.ok((await node.rpc.call<string[]>('getrawmempool')).includes(spend.txid), 'the node has it');
      } finally {
        await t.close();
      }
    });

    test('a node too slow to answer the send: a signed transaction is kept as Timeout, an unsigned one is not', async () => {
      const plain = nodeRpc(node);
      // The node prices it, then does not answer in time when sent it.
      const slowSend: RpcClient = {
        call: <T>(method: string, params?: unknown[]) =>
          method === 'sendrawtransaction' ? Promise.reject(new RpcTransportError(method, 'timeout', 'The Bitcoin node did not answer in time')) : plain.call<T>(method, params),
        batch: (calls) => plain.batch(calls),
        wallet: (name) => plain.wallet(name),
      };
      const t = await startTestApp(node, db, { rpc: slowSend });
      try {
        const [a, b] = await fundCoins(node, ['bech32', 'bech32m']);
        const height = await node.rpc.call<number>('getblockcount');
        const signed = await signedSpend(node, [a!], { locktime: height });
        assert.equal((await submit(t.app, signed.hex)).statusCode, 503);
        assert.equal((await rows(signed.txid))[0]?.status, 'Timeout');
        const unsigned = await signedSpend(node, [b!], { locktime: height });
        const { txid } = await node.rpc.call<{ txid: string }>('decoderawtransaction', [unsigned.unsignedHex]);
        // Unsigned: refused by the portal's own signature check before the node is asked, and not kept.
        assert.equal((await submit(t.app, unsigned.unsignedHex)).statusCode, 422);
        assert.deepEqual(await rows(txid), []);
      } finally {
        await t.close();
      }
    });

    test('one address stores at most its rows and bytes a day; past them it still gets the refusal', async () => {
      const height = await node.rpc.call<number>('getblockcount');
      const coins = await fundCoins(node, ['bech32', 'bech32', 'bech32', 'bech32', 'bech32']);
      const spends = await Promise.all(coins.map((coin) => signedSpend(node, [coin], { locktime: height + 100 })));
      const bytesOfOne = spends[0]!.hex.length;
      console.log(`defaults: ${DEFAULT_FAILURE_STORAGE.maxRowsPerAddressPerDay} rows and ${DEFAULT_FAILURE_STORAGE.maxBytesPerAddressPerDay} bytes of hex per address per day`);

      const byRows = { maxRowsPerAddressPerDay: 2, maxBytesPerAddressPerDay: 1_000_000 };
      console.log(`checking ${byRows.maxRowsPerAddressPerDay} rows per address per day`);
      let t: TestApp = await startTestApp(node, db, { failureStorage: byRows });
      try {
        for (const spend of spends.slice(0, 3)) assert.equal((await submit(t.app, spend.hex, '198.51.100.1')).statusCode, 422);
        assert.deepEqual((await Promise.all(spends.slice(0, 3).map(async (s) => (await rows(s.txid)).length))), [1, 1, 0], 'the third is refused but not kept');
        // A kept one failing again only counts the attempt: it adds no row.
        assert.equal((await submit(t.app, spends[0]!.hex, '198.51.100.1')).statusCode, 422);
        assert.equal((await rows(spends[0]!.txid))[0]?.errors.length, 2);
        // Another address has a budget of its own.
        assert.equal((await submit(t.app, spends[2]!.hex, '198.51.100.2')).statusCode, 422);
        assert.equal((await rows(spends[2]!.txid)).length, 1);
      } finally {
        await t.close();
      }

      const byBytes = { maxRowsPerAddressPerDay: 100, maxBytesPerAddressPerDay: bytesOfOne + 10 };
      console.log(`checking ${byBytes.maxBytesPerAddressPerDay} bytes of hex per address per day (one transaction is ${bytesOfOne})`);
      t = await startTestApp(node, db, { failureStorage: byBytes });
      try {
        assert.equal((await submit(t.app, spends[3]!.hex, '198.51.100.3')).statusCode, 422);
        assert.equal((await submit(t.app, spends[4]!.hex, '198.51.100.3')).statusCode, 422);
        assert.deepEqual([(await rows(spends[3]!.txid)).length, (await rows(spends[4]!.txid)).length], [1, 0]);
      } finally {
        await t.close();
      }
    });

    test('one transaction failing again and again keeps only its latest 50 errors', async () => {
      const failure = { txid: 'f'.repeat(64), txHex: '00', txHexes: null, submissionType: 'tx' as const, clientCode: null, status: 'Failed' as const, clientAddress: '192.0.2.9' };
      for (let i = 1; i <= MAX_KEPT_ERRORS + 10; i++) {
        assert.equal(await recordFailure(db, { ...failure, error: `attempt ${i}` }, DEFAULT_FAILURE_STORAGE), 'kept');
      }
      const [row] = await rows(failure.txid);
      assert.equal(row?.errors.length, MAX_KEPT_ERRORS);
      assert.equal(row.errors[0], 'attempt 11');
      assert.equal(row.errors.at(-1), `attempt ${MAX_KEPT_ERRORS + 10}`);
      await db.query('DELETE FROM failed_txs WHERE txid = $1', [failure.txid]);
    });

    test('failed submissions untouched past the retention are deleted by the periodic job, the others stay', async () => {
      const insert = async (txid: string, ageDays: number) => db.query(
        `INSERT INTO failed_txs (txid, tx_hex, submission_type, status, errors, created_at, updated_at)
         VALUES ($1, '00', 'tx', 'Failed', ARRAY['x'], now() - make_interval(days => $2), now() - make_interval(days => $2))`,
        [txid, ageDays],
      );
      const txid = (n: number) => `${'e'.repeat(63)}${n}`;
      await insert(txid(1), 45);
      await insert(txid(2), 31);
      await insert(txid(3), 29);
      await insert(txid(4), 0);
      const left = async () => (await db.query<{ txid: string }>(`SELECT txid FROM failed_txs WHERE txid LIKE 'eeee%' ORDER BY txid`)).rows.map((r) => r.txid);

      const t = await startTestApp(node, db, { jobs: { ...fastJobs, failedTxRetention: { retentionDays: 30, sweepMs: 100 } } });
      try {
        await until(async () => (await left()).length === 2, async () => JSON.stringify(await left()));
        assert.deepEqual(await left(), [txid(3), txid(4)]);
      } finally {
        await t.close();
      }
      assert.equal(await deleteExpiredFailedTxs(db, 1), 1, 'a shorter retention deletes the 29-day-old row too');
      assert.deepEqual(await left(), [txid(4)]);
    });
  });
}
