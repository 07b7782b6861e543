import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { HealthResponse } from '../src/modules/health/health.schemas.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { get } from './helpers/test-app.ts';
import { until } from './helpers/until.ts';

/**
 * GET /rest-api/health on the real app, node and database: ok once the
 * mempool engine has heard from the node, public, never rate limited and
 * never audited. The checks are for staff (or everyone with the public
 * mempool view on: test/mempool-privacy.test.ts). Its degraded answers under
 * real outages are in test/resilience/ (node-outage, postgres-outage).
 */

let node: TestNode;
before(async () => {
  node = await startTestNode();
});
after(async () => node?.stop());

for (const engine of testDatabases()) {
  describe(`health endpoint (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    before(async () => {
      db = await engine.open();
      // One public request per minute: a health check must not count against it.
      t = await startStaffTestApp(db, node, { rateLimitMax: 1, mempool: { consistency: 'latest' } });
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    test('ok with every check described, as often as asked, and never in the audit trail', async () => {
      await until(async () => (await get(t.app, '/rest-api/health')).statusCode === 200, async () => JSON.stringify((await get(t.app, '/rest-api/health')).body));
      await t.audit.flush();
      const { rows: before } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_logs');
      for (let i = 0; i < 5; i++) {
        const res = await t.app.inject({ method: 'GET', url: '/rest-api/health', headers: { authorization: `Bearer ${t.tokens.viewer}` } });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['cache-control'], 'no-store');
        const { status, checks } = res.json<Required<HealthResponse>>();
        assert.equal(status, 'ok');
        assert.equal(checks.node.ok, true);
        assert.ok(checks.node.last_contact_at !== null && Date.now() - Date.parse(checks.node.last_contact_at) < 10_000);
        assert.equal(checks.database.ok, true);
        assert.equal(checks.mempool.ok, true);
        assert.equal(checks.mempool.mode, 'zmq');
        assert.equal(typeof checks.jobs.queued, 'number');
      }
      await t.audit.flush();
      const { rows: after } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_logs');
      assert.equal(after[0]!.n, before[0]!.n, 'no audit rows');
      // The rate limit is real: a public endpoint is refused at its second call.
      assert.equal((await get(t.app, '/rest-api/getinfo')).statusCode, 200);
      assert.equal((await get(t.app, '/rest-api/getinfo')).statusCode, 429);
      assert.equal((await get(t.app, '/rest-api/health')).statusCode, 200);
    });
  });
}
