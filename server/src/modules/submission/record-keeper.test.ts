import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Queryable } from '../../db/database.ts';
import { testDatabases, type TestDatabase } from '../../../test/helpers/test-db.ts';
import { quietLog } from '../../../test/helpers/test-app.ts';
import { createRecordKeeper, type AcceptedRecord } from './record-keeper.ts';

const record = (n: number): Extract<AcceptedRecord, { kind: 'tx' }> => ({
  kind: 'tx',
  submission: {
    txid: n.toString(16).padStart(64, '0'),
    wtxid: n.toString(16).padStart(64, '0'),
    txHex: '00',
    clientCode: null,
    discountCodeId: null,
    size: 100,
    vsize: 100,
    weight: 400,
    fee: 300 + n,
    feeRate: 3,
    functionalRate: 3,
    marketRate: 1,
    thresholdRate: 2,
    multiplier: 3,
  },
});

/** A real database that can be taken away: queries go to a closed handle (its genuine error) until restored. */
function switchable(working: Queryable, broken: Queryable): Queryable & { down: boolean } {
  const state = {
    down: false,
    query: <T>(sql: string, params?: unknown[]) => (state.down ? broken : working).query<T>(sql, params),
    exec: (sql: string) => (state.down ? broken : working).exec(sql),
  };
  return state;
}

for (const engine of testDatabases()) {
  describe(`record keeper (${engine.name})`, () => {
    let db: TestDatabase;
    let closed: TestDatabase;
    let dir: string;

    before(async () => {
      db = await engine.open();
      closed = await engine.open();
      await closed.close();
      dir = await mkdtemp(path.join(tmpdir(), 'spool-test-'));
    });
    after(async () => {
      await db?.close();
      await rm(dir, { recursive: true, force: true });
    });

    const rows = async (txid: string) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tx_submissions WHERE txid = $1', [txid])).rows[0]!.n;

    test('writes straight to the database when it is up, leaving no spool', async () => {
      const spoolFile = path.join(dir, 'up.jsonl');
      const keeper = createRecordKeeper({ db, spoolFile, log: quietLog });
      await keeper.keep(record(1));
      assert.equal(await rows(record(1).submission.txid), 1);
      await assert.rejects(readFile(spoolFile), { code: 'ENOENT' });
      await keeper.close();
    });

    test("the spool and the directory made for it are private to the portal's user (0600, 0700), whatever the umask", async () => {
      const spoolFile = path.join(dir, 'private', 'spool.jsonl');
      const keeper = createRecordKeeper({ db: closed, spoolFile, log: quietLog, retryMs: 60_000 });
      const umask = process.umask(0o022);
      try {
        await keeper.keep(record(40));
      } finally {
        process.umask(umask);
      }
      assert.equal((await stat(spoolFile)).mode & 0o777, 0o600);
      assert.equal((await stat(path.dirname(spoolFile))).mode & 0o777, 0o700);
      await keeper.close();
    });

    test('spools to disk while the database is down and replays once it is back, exactly once', async () => {
      const spoolFile = path.join(dir, 'down.jsonl');
      const target = switchable(db, closed);
      const keeper = createRecordKeeper({ db: target, spoolFile, log: quietLog, retryMs: 60_000 });
      target.down = true;
      await keeper.keep(record(2));
      await keeper.keep(record(3));
      await keeper.keep(record(2)); // the same record twice must still give one row
      assert.equal((await readFile(spoolFile, 'utf8')).trim().split('\n').length, 3);
      assert.deepEqual(await keeper.drain(), { written: 0, remaining: 3 });

      target.down = false;
      assert.deepEqual(await keeper.drain(), { written: 3, remaining: 0 });
      assert.equal(await rows(record(2).submission.txid), 1);
      assert.equal(await rows(record(3).submission.txid), 1);
      await assert.rejects(readFile(spoolFile), { code: 'ENOENT' });
      await keeper.close();
    });

    test('tells whether a record naming a transaction waits in the spool, until it is written', async () => {
      const spoolFile = path.join(dir, 'which.jsonl');
      const target = switchable(db, closed);
      const keeper = createRecordKeeper({ db: target, spoolFile, log: quietLog, retryMs: 60_000 });
      const members = [record(7).submission.txid, record(8).submission.txid];
      assert.equal(await keeper.spooled(record(6).submission.txid), false, 'no spool at all');
      target.down = true;
      await keeper.keep(record(6));
      await keeper.keep({
        kind: 'package',
        submission: {
          packageHash: 'ab'.repeat(32), txids: members, txHexes: ['00', '00'], clientCode: null, discountCodeId: null,
          totalSize: 200, totalVsize: 200, totalWeight: 800, totalFee: 600, feeRate: 3, marketRate: 1, multiplier: 3, packageMsg: 'success',
        },
      });
      assert.deepEqual(await Promise.all([record(6), record(7), record(8), record(9)].map((r) => keeper.spooled(r.submission.txid))), [true, true, true, false]);
      target.down = false;
      assert.deepEqual(await keeper.drain(), { written: 2, remaining: 0 });
      assert.deepEqual(await Promise.all([record(6), record(7)].map((r) => keeper.spooled(r.submission.txid))), [false, false]);
      await keeper.close();
    });

    test('a spool left by an earlier run is replayed by a new keeper', async () => {
      const spoolFile = path.join(dir, 'earlier.jsonl');
      await writeFile(spoolFile, `${JSON.stringify(record(4))}\n`);
      const keeper = createRecordKeeper({ db, spoolFile, log: quietLog });
      assert.deepEqual(await keeper.drain(), { written: 1, remaining: 0 });
      assert.equal(await rows(record(4).submission.txid), 1);
      await keeper.close();
    });

    test('only when both the database and the disk fail does keeping fail', async () => {
      const blocker = path.join(dir, 'a-file');
      await writeFile(blocker, 'not a directory');
      const target = switchable(db, closed);
      target.down = true;
      const keeper = createRecordKeeper({ db: target, spoolFile: path.join(blocker, 'spool.jsonl'), log: quietLog });
      await assert.rejects(keeper.keep(record(5)));
      await keeper.close();
    });
  });
}
