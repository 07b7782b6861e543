import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claimJobs } from '../src/jobs/job-queue.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { post, startTestApp, type TestApp } from './helpers/test-app.ts';
import { until } from './helpers/until.ts';

/**
 * Every accepted submission followed to its end on a real node, by the
 * background jobs the runtime runs: confirmed (block hash, height and time
 * as the node's block header has them), replaced (naming the replacement),
 * conflicted (a block took a double spend), a descendant of a replaced
 * parent, package members; blocks mined while no worker ran, and a job a
 * dead worker held; a node that lost its mempool getting the submissions
 * back, and evicting the one it now refuses, with its reason.
 */

interface Tracked {
  status: string;
  block_hash: string | null;
  block_height: number | null;
  block_time: number | null;
  replaced_by: string | null;
  outcome_reason: string | null;
  rebroadcasts: number;
}

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(40);
});
after(async () => node?.stop());

for (const engine of testDatabases()) {
  describe(`tracking submissions to their end (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;

    before(async () => {
      db = await engine.open();
      t = await startTestApp(node, db, { jobs: { runner: { pollMs: 100 }, recheckMs: 60_000, ...(process.env.DEBUG_JOBS ? { log: { info: console.log, warn: console.log, error: console.log } } : {}) } });
      // Cheap transactions are welcome: the node's own minimum is the only bar.
      await t.setSetting('fee_rate_floor', '0');
      await t.setSetting('slipstream_multiplier', '1');
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const tracked = async (txid: string, table = 'tx_submissions') =>
      (
        await db.query<Tracked>(
          `SELECT status, block_hash, block_height, extract(epoch FROM block_time)::int AS block_time, replaced_by, outcome_reason, rebroadcasts
           FROM ${table} WHERE txid = $1`,
          [txid],
        )
      ).rows[0];

    const settled = (txid: string, status: string, table = 'tx_submissions', timeoutMs = 20_000) =>
      until(async () => (await tracked(txid, table))?.status === status, async () => `${txid}: ${JSON.stringify(await tracked(txid, table))}`, timeoutMs);

    async function submit(hex: string): Promise<void> {
      const res = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-tx', { tx_hex: hex });
      assert.equal(res.body.status, 'success', res.body.message);
    }

    test('confirmed: the block hash, height and time of the block the node mined it in', async () => {
      const tx = await node.buildTx({ feeRate: 5 });
      await submit(tx.hex);
      const [hash] = await node.mine(1);
      await settled(tx.txid, 'confirmed');
      const header = await node.rpc.call<{ height: number; time: number }>('getblockheader', [hash]);
      const block = await node.rpc.call<{ tx: string[] }>('getblock', [hash, 1]);
      assert.ok(block.tx.includes(tx.txid), 'the node\'s block holds it');
      const row = await tracked(tx.txid);
      assert.deepEqual({ hash: row?.block_hash, height: row?.block_height, time: row?.block_time }, { hash, height: header.height, time: header.time });
      const { rows } = await db.query<{ state: string }>(`SELECT state FROM jobs WHERE key = $1`, [`track:${tx.txid}`]);
      assert.deepEqual(rows.map((r) => r.state), ['done']);
    });

    test('replaced: names the replacement; a child of the replaced one goes with it; the replacement is what gets mined', async () => {
      const original = await node.buildTx({ feeRate: 3 });
      await submit(original.hex);
      const child = await node.buildChild({ parentHex: original.hex, vout: 0, feeRate: 4 });
      await submit(child.hex);
      const replacement = await node.buildReplacement(original.hex, 30);
      await node.rpc.call('sendrawtransaction', [replacement.hex]);
      await settled(original.txid, 'replaced');
      assert.equal((await tracked(original.txid))?.replaced_by, replacement.txid);
      await settled(child.txid, 'replaced');
      assert.match((await tracked(child.txid))?.outcome_reason ?? '', new RegExp(`parent ${original.txid} was replaced`));
      await node.mine(1);
      await until(async () => (await node.rpc.call<{ size: number }>('getmempoolinfo')).size === 0, async () => 'mempool not empty');
      assert.equal((await tracked(original.txid))?.status, 'replaced', 'stays replaced once the replacement is mined');
    });

    test('conflicted: a block took another transaction spending the same inputs', async () => {
      const original = await node.buildTx({ feeRate: 3 });
      await submit(original.hex);
      const conflict = await node.buildReplacement(original.hex, 8);
      await node.rpc.call('generateblock', [await node.address(), [conflict.hex]]);
      await settled(original.txid, 'conflicted');
      assert.match((await tracked(original.txid))?.outcome_reason ?? '', /spent by another transaction in the chain/);
    });

    test('package members are tracked one by one', async () => {
      const parent = await node.buildTx({ feeRate: 3 });
      const child = await node.buildChild({ parentHex: parent.hex, vout: 0, feeRate: 6 });
      const res = await post<{ status: string; message: string }>(t.app, '/rest-api/submit-package', { tx_hexes: [parent.hex, child.hex] });
      assert.equal(res.body.status, 'success', res.body.message);
      const [hash] = await node.mine(1);
      await settled(parent.txid, 'confirmed', 'package_tx_outcomes');
      await settled(child.txid, 'confirmed', 'package_tx_outcomes');
      assert.equal((await tracked(child.txid, 'package_tx_outcomes'))?.block_hash, hash);
    });

    test('blocks mined while no worker ran are matched at the next start; a job a dead worker held is taken over', async () => {
      await t.jobs!.stop();
      const quiet = await node.buildTx({ feeRate: 5 });
      const held = await node.buildTx({ feeRate: 5 });
      await submit(quiet.hex);
      await submit(held.hex);
      await t.records.idle();
      // A worker that claimed the job and died: its lease must run out first.
      await db.query(`UPDATE jobs SET run_at = now() WHERE key = $1`, [`track:${held.txid}`]);
      const claimed = await claimJobs(db, { worker: 'crashed-instance', limit: 50, leaseMs: 1_500, kinds: ['track'] });
      assert.ok(claimed.some((j) => j.key === `track:${held.txid}`));
      const [hash] = await node.mine(1);
      assert.equal((await tracked(quiet.txid))?.status, 'accepted', 'nothing runs while the workers are down');

      await t.jobs!.start();
      await settled(quiet.txid, 'confirmed');
      await settled(held.txid, 'confirmed');
      assert.equal((await tracked(held.txid))?.block_hash, hash);
      // The block scan confirmed it; the job itself ends once its dead holder's lease runs out and a live worker takes it.
      const job = async () => (await db.query<{ state: string; attempts: number; locked_by: string | null }>(`SELECT state, attempts, locked_by FROM jobs WHERE key = $1`, [`track:${held.txid}`])).rows[0];
      await until(async () => (await job())?.state === 'done', async () => JSON.stringify(await job()));
      assert.deepEqual(await job(), { state: 'done', attempts: 2, locked_by: null });
    });

    test('a node that lost its mempool gets the submissions back; one it now refuses is evicted with its reason', async () => {
      const cheap = await node.buildTx({ feeRate: 3 });
      const rich = await node.buildTx({ feeRate: 40 });
      await submit(cheap.hex);
      await submit(rich.hex);
      // Restarted without its mempool, and now asking 10 sat/vB to relay; its
      // wallet (which signed both) must not put them back itself.
      await node.restart({ dropMempool: true, extraArgs: ['-minrelaytxfee=0.0001', '-walletbroadcast=0'] });
      try {
        await settled(cheap.txid, 'evicted', 'tx_submissions', 60_000);
        assert.match((await tracked(cheap.txid))?.outcome_reason ?? '', /min relay fee not met|mempool min fee not met/);
        await until(async () => ((await tracked(rich.txid))?.rebroadcasts ?? 0) >= 1, async () => JSON.stringify(await tracked(rich.txid)), 60_000);
        const entry = await node.rpc.call<{ wtxid: string }>('getmempoolentry', [rich.txid]);
        assert.ok(entry.wtxid, 'back in the node\'s mempool');
        assert.equal((await tracked(rich.txid))?.status, 'accepted');
      } finally {
        await node.restart();
      }
      await node.mine(1);
      await settled(rich.txid, 'confirmed', 'tx_submissions', 30_000);
    });
  });
}
