import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSmallTxs, type SmallTx } from '../../bench/small-txs.ts';
import { NODE_UNAVAILABLE_MESSAGE } from '../../src/http/errors.ts';
import { queueRetries } from '../../src/modules/failed-txs/failed-txs-retry.repository.ts';
import type { HealthResponse } from '../../src/modules/health/health.schemas.ts';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { get, post, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDatabases, type TestDatabase, type TestEngine } from '../helpers/test-db.ts';
import { until } from '../helpers/until.ts';

/**
 * Faults, nothing lost (docs/architecture.md#faults-nothing-lost): "the node stopped for a minute under steady
 * submissions, then restarted: users get a clear temporary error or a
 * durable queued state, the health endpoint says degraded within 10 s, every
 * accepted submission reaches the node after recovery."
 *
 * The node is stopped for the whole minute. What sets in within seconds (the
 * refused calls, the health endpoint's 5-second silence limit, the failure
 * rows) must still hold when the longer timers have run: the mempool
 * engine's last view goes stale at 60 s, the ZMQ reconnection backs off to
 * its cap, and the retries and hand-backs after the restart meet a minute's
 * worth of refused submissions. So the submissions come steadily through the
 * whole minute, each answered at once (one held up by the RPC client's
 * timeout would show as a gap), and the health endpoint answers all along
 * and says degraded until the restart, without flapping.
 *
 * Every database engine's app (PGlite, and Postgres when TEST_DATABASE_URL
 * is set) lives through the same outage at the same time, each with its own
 * database and its own transactions, as two portals on one node would: the
 * minute is spent once, not once per engine. Each engine's verdict is its
 * own test.
 *
 * The node comes back without its mempool (mempool.dat gone, and its wallet,
 * which signed the transactions, told not to put them back), so the
 * submissions accepted before the stop reach it again only if tracking hands
 * them back. Submissions refused during the outage (503) are kept as Failed
 * rows; a staff retry after recovery, run by the background jobs, gets them
 * to the node. The apps run as in production: the mempool engine in `latest`
 * mode, the background jobs on.
 */

const OUTAGE_MS = 60_000;
/** The bound on the health endpoint noticing. */
const HEALTH_DEADLINE_MS = 10_000;
const SUBMIT_EVERY_MS = 250;
const HEALTH_EVERY_MS = 250;
/**
 * The longest wait allowed between two submissions, or two health answers,
 * while the node is down: the refusals come at once, never after the RPC
 * client's 30-second timeout.
 */
const MAX_GAP_MS = 2_000;
const BEFORE_MS = 3_000;
const AFTER_MS = 3_000;
/** The stop, the restart and the health endpoint's recovery take a few seconds; this much more is allowed. */
const RESTART_ROOM_MS = 30_000;
/** Enough for one submission every SUBMIT_EVERY_MS through the whole run. */
const TXS_PER_RUN = Math.ceil((BEFORE_MS + OUTAGE_MS + RESTART_ROOM_MS + AFTER_MS) / SUBMIT_EVERY_MS);

interface Answer {
  tx: SmallTx;
  at: number;
  ms: number;
  status: number;
  body: { status?: string; message?: string };
}

interface HealthSample {
  at: number;
  status: number;
  body: Required<HealthResponse>;
}

/** One engine's app through the outage. */
interface Run {
  engine: TestEngine;
  db: TestDatabase;
  app: TestApp | undefined;
  txs: SmallTx[];
  answers: Answer[];
  samples: HealthSample[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The longest stretch within [from, to] without an event (`at`s sorted). */
function longestGap(ats: number[], from: number, to: number): number {
  const inside = [from, ...ats.filter((at) => at > from && at < to), to];
  return Math.max(...inside.slice(1).map((at, i) => at - inside[i]!));
}

const engines = testDatabases();

describe('the node stopped for a minute under steady submissions, then restarted without its mempool', () => {
  let node: TestNode;
  const runs: Run[] = [];
  let haltAt = 0;
  let haltedAt = 0;
  let restartAt = 0;
  let upAt = 0;

  before(async () => {
    node = await startTestNode();
    const pool = await buildSmallTxs(node, TXS_PER_RUN * engines.length, 3);
    for (const [i, engine] of engines.entries()) {
      const run: Run = { engine, db: await engine.open(), app: undefined, txs: pool.slice(i * TXS_PER_RUN, (i + 1) * TXS_PER_RUN), answers: [], samples: [] };
      runs.push(run);
      run.app = await startTestApp(node, run.db, { mempool: { consistency: 'latest' }, jobs: { runner: { pollMs: 200 } } });
      // This monitor reads the health checks without a staff token: the public mempool view opens them to it.
      await run.app.setSetting('public_mempool_view', 'true');
    }
    const health = (run: Run) => get<Required<HealthResponse>>(run.app!.app, '/rest-api/health');
    await Promise.all(runs.map((run) => until(async () => (await health(run)).statusCode === 200, async () => JSON.stringify((await health(run)).body))));

    let stop = false;
    const submitting = (run: Run) => async () => {
      for (const tx of run.txs) {
        if (stop) return;
        const started = Date.now();
        const res = await post<Answer['body']>(run.app!.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
        run.answers.push({ tx, at: started, ms: Date.now() - started, status: res.statusCode, body: res.body });
        await sleep(started + SUBMIT_EVERY_MS - Date.now());
      }
      throw new Error(`${run.engine.name}: ran out of transactions after ${run.answers.length} submissions`);
    };
    const polling = (run: Run) => async () => {
      while (!stop) {
        const started = Date.now();
        const res = await health(run);
        run.samples.push({ at: started, status: res.statusCode, body: res.body });
        await sleep(started + HEALTH_EVERY_MS - Date.now());
      }
    };
    // Whichever fails first fails the run, with every loop stopped.
    const loops = Promise.all(runs.flatMap((run) => [submitting(run)(), polling(run)()])).catch((error: unknown) => {
      stop = true;
      throw error;
    });
    try {
      await sleep(BEFORE_MS);
      haltAt = Date.now();
      await node.halt();
      haltedAt = Date.now();
      await sleep(haltAt + OUTAGE_MS - Date.now());
      restartAt = Date.now();
      await node.restart({ dropMempool: true, extraArgs: ['-walletbroadcast=0'] });
      upAt = Date.now();
      await until(async () => runs.every((run) => run.samples.at(-1)?.status === 200), async () => JSON.stringify(runs.map((run) => run.samples.at(-1))), 30_000);
      await sleep(AFTER_MS);
    } finally {
      stop = true;
      await loops.catch(() => {});
    }
    await loops;
  });

  after(async () => {
    for (const run of runs) {
      await run.app?.close();
      await run.db.close();
    }
    await node?.stop();
  });

  for (const [index, engine] of engines.entries()) {
    test(`clear 503s kept for retry all through the minute, health degraded within 10 s, every accepted and retried submission reaches the node (${engine.name})`, async (t) => {
      const { db, answers, samples } = runs[index]!;
      t.diagnostic(`the stop took ${haltedAt - haltAt} ms, the restart ${upAt - restartAt} ms; the node was down ${upAt - haltAt} ms`);

      // Every answer is a success or the clear temporary error, nothing else.
      const odd = answers.filter((a) => !(a.status === 200 && a.body.status === 'success' && a.body.message === a.tx.txid) && !(a.status === 503 && a.body.message === NODE_UNAVAILABLE_MESSAGE));
      assert.deepEqual(odd.map((a) => ({ at: a.at - haltAt, status: a.status, body: a.body })), [], 'answers other than success or "node not reachable"');
      const accepted = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 503);
      const acceptedBefore = accepted.filter((a) => a.at < haltAt);
      t.diagnostic(`${answers.length} submissions: ${acceptedBefore.length} accepted before the stop, ${refused.length} refused (503), ${accepted.length - acceptedBefore.length} accepted after`);
      assert.ok(acceptedBefore.length > 0, 'submissions were accepted before the stop');
      assert.ok(refused.length >= OUTAGE_MS / SUBMIT_EVERY_MS / 2, `the outage was met by submissions (${refused.length} refused)`);
      assert.ok(accepted.some((a) => a.at > upAt), 'submissions were accepted after the restart');
      // A submission still in flight when the stop was asked for may meet the stopping node: judged by when it was answered.
      assert.ok(refused.every((a) => a.at + a.ms >= haltAt), 'no refusal answered before the stop');

      // Steady through the whole minute: no submission held up, none after the restart refused for long.
      const submitGap = longestGap(answers.map((a) => a.at), haltAt, upAt);
      const slowest = Math.max(...refused.map((a) => a.ms));
      t.diagnostic(`while the node was down: longest wait between two submissions ${submitGap} ms, slowest refusal ${slowest} ms`);
      assert.ok(submitGap <= MAX_GAP_MS, `a submission came at least every ${MAX_GAP_MS} ms while the node was down (longest wait ${submitGap} ms)`);
      assert.ok(refused.some((a) => a.at >= haltAt + OUTAGE_MS - MAX_GAP_MS), 'submissions were refused until the end of the minute');

      // The health endpoint: ok before, degraded within 10 s of the stop and until the restart, ok again after.
      assert.ok(samples.filter((s) => s.at < haltAt).every((s) => s.status === 200 && s.body.status === 'ok'), 'ok before the stop');
      const healthGap = longestGap(samples.map((s) => s.at), haltAt, upAt);
      assert.ok(healthGap <= MAX_GAP_MS, `the health endpoint answered at least every ${MAX_GAP_MS} ms while the node was down (longest wait ${healthGap} ms)`);
      const firstDegraded = samples.find((s) => s.at >= haltAt && s.status === 503);
      assert.ok(firstDegraded, 'the health endpoint said degraded');
      assert.equal(firstDegraded.body.status, 'degraded');
      assert.equal(firstDegraded.body.checks.node.ok, false);
      assert.equal(firstDegraded.body.checks.database.ok, true, 'the database is fine');
      const noticedMs = firstDegraded.at - haltAt;
      t.diagnostic(`health degraded ${noticedMs} ms after the stop was asked for (${firstDegraded.body.checks.node.error})`);
      assert.ok(noticedMs <= HEALTH_DEADLINE_MS, `degraded after ${noticedMs} ms`);
      // Until the restart began: the node answers a little before restart() returns.
      const during = samples.filter((s) => s.at >= firstDegraded.at && s.at < restartAt);
      assert.deepEqual(during.filter((s) => s.status !== 503).map((s) => ({ at: s.at - haltAt, body: s.body })), [], 'degraded until the node was back');
      const lastDegraded = during.at(-1)!;
      t.diagnostic(`health at the end of the minute: ${lastDegraded.body.checks.node.error}; ${lastDegraded.body.checks.jobs.queued} jobs waiting`);
      assert.ok(lastDegraded.at >= restartAt - MAX_GAP_MS, 'the health endpoint was asked until the restart');
      const firstOk = samples.find((s) => s.at >= restartAt && s.status === 200);
      t.diagnostic(`health ok again ${firstOk ? firstOk.at - upAt : '?'} ms after the node was back`);
      assert.equal(samples.at(-1)?.status, 200, 'ok again after the restart');

      // The refused submissions are kept, whole, for staff to retry.
      const refusedTxids = [...new Set(refused.map((a) => a.tx.txid))];
      const { rows: failures } = await db.query<{ id: number; txid: string; status: string; tx_hex: string }>(
        `SELECT id::int AS id, txid, status, tx_hex FROM failed_txs WHERE txid = ANY($1::text[])`,
        [refusedTxids],
      );
      assert.deepEqual(failures.map((f) => f.txid).sort(), [...refusedTxids].sort(), 'one failure row per refused submission');
      for (const f of failures) {
        assert.ok(['Failed', 'Timeout'].includes(f.status), `${f.txid}: ${f.status}`);
        assert.equal(f.tx_hex, refused.find((a) => a.tx.txid === f.txid)!.tx.hex);
      }

      // A staff retry after recovery, run by the background jobs.
      const retryAt = Date.now();
      assert.deepEqual((await queueRetries(db, failures.map((f) => f.id))).queuedIds.length, failures.length);
      const resolved = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM failed_txs WHERE txid = ANY($1::text[]) AND status = 'Resolved'`, [refusedTxids])).rows[0]!.n;
      await until(async () => (await resolved()) === refusedTxids.length, async () => `${await resolved()} of ${refusedTxids.length} retries resolved`, 60_000);
      t.diagnostic(`${refusedTxids.length} retries resolved in ${Date.now() - retryAt} ms`);

      // Every submission the API accepted, and every one retried, is at the node: the ones accepted before the stop handed back by tracking.
      const expected = [...new Set([...accepted.map((a) => a.tx.txid), ...refusedTxids])];
      const missing = async () => {
        const mempool = new Set(await node.rpc.call<string[]>('getrawmempool'));
        return expected.filter((txid) => !mempool.has(txid));
      };
      await until(async () => (await missing()).length === 0, async () => `not in the node's mempool: ${(await missing()).join(', ')}`, 60_000);
      const records = async () =>
        (await db.query<{ txid: string; status: string; rebroadcasts: number }>(`SELECT txid, status, rebroadcasts FROM tx_submissions WHERE txid = ANY($1::text[])`, [expected])).rows;
      // The hand-back is counted just after the node took it back.
      const notCounted = async () => (await records()).filter((r) => r.rebroadcasts < 1 && acceptedBefore.some((a) => a.tx.txid === r.txid));
      await until(async () => (await notCounted()).length === 0, async () => `not handed back by tracking: ${JSON.stringify(await notCounted())}`, 15_000);
      // A retry is resolved once the node took the transaction; its row turns from 'pending' to 'accepted' just after, as a user's does.
      const notAccepted = async () => {
        const recorded = new Map((await records()).map((r) => [r.txid, r]));
        return expected.filter((txid) => recorded.get(txid)?.status !== 'accepted').map((txid) => ({
          txid,
          row: recorded.get(txid) ?? null,
          answers: answers.filter((a) => a.tx.txid === txid).map((a) => ({ at: a.at - haltAt, status: a.status })),
        }));
      };
      await until(async () => (await notAccepted()).length === 0, async () => `not recorded as accepted: ${JSON.stringify(await notAccepted())}`, 15_000);
    });
  }
});
