import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestNode, type BuiltTx, type TestNode } from './helpers/regtest.ts';
import { startServerProcess, type ServerProcess } from './helpers/server-process.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { until } from './helpers/until.ts';

/**
 * The real server process killed (SIGKILL, no shutdown) while it tracks
 * submissions, blocks mined while it is down, then started again: every
 * submission ends up recorded with the block that really holds it, and
 * nothing is left behind. Needs a Postgres server (TEST_DATABASE_URL): the
 * child process and the test share the database.
 */

const postgres = testDatabases().find((e) => e.name === 'postgres');

describe('tracking across a killed server', { skip: postgres ? false : 'needs TEST_DATABASE_URL (a Postgres server both processes reach)' }, () => {
  let node: TestNode;
  let db: TestDatabase;
  let server: ServerProcess | undefined;

  before(async () => {
    node = await startTestNode();
    await node.ensureUtxos(10);
    db = await postgres!.open();
  });
  after(async () => {
    await server?.kill();
    await db?.close();
    await node?.stop();
  });

  const row = async (txid: string) =>
    (await db.query<{ status: string; block_hash: string | null }>(`SELECT status, block_hash FROM tx_submissions WHERE txid = $1`, [txid])).rows[0];

  async function submit(tx: BuiltTx): Promise<void> {
    const res = await fetch(`${server!.baseUrl}/rest-api/submit-tx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx_hex: tx.hex }) });
    const body = (await res.json()) as { status: string; message: string };
    assert.equal(body.status, 'success', body.message);
  }

  test('killed mid-tracking, blocks mined while down: each submission confirmed in its own block after the restart', async () => {
    server = await startServerProcess({ node, databaseUrl: db.url! });
    const first = await node.buildTx({ feeRate: 6 });
    const second = await node.buildTx({ feeRate: 6 });
    const third = await node.buildTx({ feeRate: 6 });
    for (const tx of [first, second, third]) await submit(tx);
    await until(async () => (await db.query(`SELECT 1 FROM jobs WHERE kind = 'track' AND key = ANY($1::text[])`, [[first, second, third].map((t) => `track:${t.txid}`)])).rowCount === 3, async () => 'track jobs not queued');

    // A block with the first, and the server killed as it hears of it.
    const blockOne = (await node.rpc.call<{ hash: string }>('generateblock', [await node.address(), [first.txid]])).hash;
    await server.kill('SIGKILL');
    server = undefined;
    // While no server runs: a block with the second.
    const blockTwo = (await node.rpc.call<{ hash: string }>('generateblock', [await node.address(), [second.txid]])).hash;

    server = await startServerProcess({ node, databaseUrl: db.url! });
    // A job the killed server held waits out its lease (60 s) before another takes it.
    await until(async () => (await row(first.txid))?.status === 'confirmed' && (await row(second.txid))?.status === 'confirmed', async () => JSON.stringify([await row(first.txid), await row(second.txid)]), 90_000);
    assert.equal((await row(first.txid))?.block_hash, blockOne);
    assert.equal((await row(second.txid))?.block_hash, blockTwo);
    assert.equal((await row(third.txid))?.status, 'accepted', 'still waiting in the mempool');

    const [blockThree] = await node.mine(1);
    await until(async () => (await row(third.txid))?.status === 'confirmed', async () => JSON.stringify(await row(third.txid)), 90_000);
    assert.equal((await row(third.txid))?.block_hash, blockThree);
    await until(
      async () => (await db.query(`SELECT 1 FROM jobs WHERE kind = 'track' AND state IN ('queued', 'running')`)).rowCount === 0,
      async () => JSON.stringify((await db.query(`SELECT key, state, locked_by FROM jobs WHERE state IN ('queued', 'running')`)).rows),
      90_000,
    );
  });
});
