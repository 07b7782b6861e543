import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createPortalTxidIndex, type PortalTxidIndex } from '../src/modules/submission/portal-txid-index.ts';
import { recordedTxids } from '../src/modules/submission/portal-records.repository.ts';
import { quietLog } from './helpers/test-app.ts';
import { fakeTxid, insertTx } from './helpers/submission-fixtures.ts';
import { testDatabases } from './helpers/test-db.ts';
import type { Queryable } from '../src/db/database.ts';

/**
 * The in-memory index of the portal's txids (portal-txid-index.ts) must
 * never say "not the portal's" of a txid the database counts as the
 * portal's (portal_accepted): that would make a recorded transaction "not
 * found". These tests hold it to the database's own answer, at start, as
 * transactions become the portal's on this instance and on another, and
 * across a lost notification connection.
 */

const randomTxid = () => randomBytes(32).toString('hex');

async function accepted(db: Queryable, txid: string, status: 'pending' | 'accepted' = 'accepted'): Promise<void> {
  await insertTx(db, { txid, txHex: '00', clientCode: null, vsize: 100, fee: 1_000, marketRate: 1, status, createdAt: new Date().toISOString() });
}

async function failed(db: Queryable, txid: string, status: 'Failed' | 'Timeout'): Promise<void> {
  await db.query(`INSERT INTO failed_txs (txid, tx_hex, submission_type, status, errors) VALUES ($1, '00', 'tx', $2, ARRAY['test'])`, [txid, status]);
}

async function packageMember(db: Queryable, txid: string): Promise<void> {
  await db.query(`INSERT INTO package_tx_outcomes (txid, status) VALUES ($1, 'accepted')`, [txid]);
}

/** Waits until `index` holds `txid` (a notification crosses a connection); fails after a few seconds. */
async function heldSoon(index: PortalTxidIndex, txid: string): Promise<void> {
  for (let i = 0; i < 200 && !(index.ready && index.mayHold(txid)); i++) await sleep(20);
  assert.ok(index.ready && index.mayHold(txid), `the index never learnt of ${txid}`);
}

for (const engine of testDatabases()) {
  /** A fresh database and an index started on it; both closed after the test, the index first. */
  const startedIndex = async (t: TestContext) => {
    const db = await engine.open();
    const index = createPortalTxidIndex({ db, log: quietLog });
    await index.start();
    t.after(async () => {
      await index.stop();
      await db.close();
    });
    return { db, index };
  };

  describe(`portal txid index (${engine.name})`, () => {
    test('loads what the portal accepted before it started, and only that: it agrees with portal_accepted', async (t) => {
      const db = await engine.open();
      const ours = { single: fakeTxid('single'), member: fakeTxid('member'), timedOut: fakeTxid('timeout') };
      const notOurs = { pending: fakeTxid('pending'), refused: fakeTxid('refused') };
      await accepted(db, ours.single);
      await packageMember(db, ours.member);
      await failed(db, ours.timedOut, 'Timeout');
      await accepted(db, notOurs.pending, 'pending');
      await failed(db, notOurs.refused, 'Failed');

      const index = createPortalTxidIndex({ db, log: quietLog });
      assert.equal(index.mayHold(randomTxid()), true, 'before it has loaded, every txid is for the database to decide');
      await index.start();
      t.after(async () => {
        await index.stop();
        await db.close();
      });
      assert.equal(index.ready, true);

      const strangers = Array.from({ length: 200 }, randomTxid);
      const every = [...Object.values(ours), ...Object.values(notOurs), ...strangers];
      const truth = await recordedTxids(db, every);
      assert.deepEqual([...truth].sort(), Object.values(ours).sort());
      for (const txid of every) assert.equal(index.mayHold(txid), truth.has(txid), `${txid}: the index and the database disagree`);
    });

    test('learns at commit of each write that makes a transaction the portal\'s, and of nothing else', async (t) => {
      const { db, index } = await startedIndex(t);

      const settling = fakeTxid('settles later');
      await accepted(db, settling, 'pending');
      const refused = fakeTxid('refused, then timed out');
      await failed(db, refused, 'Failed');
      // A pending row and a refusal are anyone's to make: not the portal's yet.
      await sleep(100);
      assert.equal(index.mayHold(settling), false);
      assert.equal(index.mayHold(refused), false);

      await db.query(`UPDATE tx_submissions SET status = 'accepted' WHERE txid = $1`, [settling]);
      await heldSoon(index, settling);
      await db.query(`UPDATE failed_txs SET status = 'Timeout' WHERE txid = $1`, [refused]);
      await heldSoon(index, refused);
      const member = fakeTxid('member later');
      await packageMember(db, member);
      await heldSoon(index, member);
      const direct = fakeTxid('accepted later');
      await accepted(db, direct);
      await heldSoon(index, direct);
    });

    test('add() counts a txid before its record is written', async (t) => {
      const { index } = await startedIndex(t);
      const txid = randomTxid();
      assert.equal(index.mayHold(txid), false);
      index.add([txid]);
      assert.equal(index.mayHold(txid), true);
    });

    test('holds every key through folding: 70,000 added, each still found, strangers still not', async (t) => {
      const { index } = await startedIndex(t);
      const txids = Array.from({ length: 70_000 }, randomTxid);
      index.add(txids);
      assert.equal(index.size, 70_000);
      for (const txid of txids) if (!index.mayHold(txid)) assert.fail(`${txid} was lost`);
      const strangers = Array.from({ length: 1_000 }, randomTxid).filter((txid) => index.mayHold(txid));
      assert.deepEqual(strangers, []);
    });
  });
}

const postgres = testDatabases().find((e) => e.name === 'postgres');

describe('portal txid index across instances (Postgres)', { skip: postgres ? false : 'TEST_DATABASE_URL is not set' }, () => {
  test('another instance\'s acceptance reaches this one; a lost notification connection asks the database until it has reloaded', async (t) => {
    const db = await postgres!.open();
    const other = await db.openPeer();
    const index = createPortalTxidIndex({ db: other, log: quietLog });
    await index.start();
    t.after(async () => {
      await index.stop();
      await db.close();
    });

    const fromElsewhere = fakeTxid('accepted by the other instance');
    await accepted(db, fromElsewhere);
    await heldSoon(index, fromElsewhere);

    // The listening connection dies (a Postgres restart, a network cut): the index can no longer vouch for a "no".
    const admin = new pg.Client({ connectionString: db.url! });
    await admin.connect();
    const { rowCount } = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'slipstream-portal (listen)'`,
    ).finally(() => admin.end());
    assert.equal(rowCount, 1, 'one listening connection');
    // Accepted while nobody listens (the index reconnects after half a second): no notification will ever tell of it.
    const duringTheGap = fakeTxid('accepted during the gap');
    await accepted(db, duringTheGap);
    for (let i = 0; i < 100 && index.ready; i++) await sleep(5);
    assert.equal(index.ready, false);
    assert.equal(index.mayHold(randomTxid()), true, 'without notifications, every txid is for the database to decide');
    // Found once it listens again and has reloaded.
    await heldSoon(index, duringTheGap);
    assert.equal(index.mayHold(randomTxid()), false);
  });
});
