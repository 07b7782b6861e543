import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Value } from 'typebox/value';
import { MEMPOOL_VIEW_PRIVATE_MESSAGE } from '../src/auth/mempool-view-access.ts';
import { METRICS_PRIVATE_MESSAGE } from '../src/metrics/metrics.routes.ts';
import type { HealthResponse } from '../src/modules/health/health.schemas.ts';
import { MempoolStateResponse } from '../src/modules/mempool-dashboard/mempool-dashboard.schemas.ts';
import type { SettingsResponse } from '../src/modules/settings/settings.schemas.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { openEventStream, type SseFrame } from './helpers/sse-client.ts';
import { startStaffTestApp, type StaffTestApp, type Who } from './helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { until } from './helpers/until.ts';

/**
 * The pool's mempool is private (docs/behaviour.md#private-until-mined), and so are its
 * aggregates: the /mempool/ view's state and stream, the health details
 * and the Prometheus scrape (without METRICS_TOKEN) are for signed-in staff,
 * unless an administrator turns the `public_mempool_view` setting on. A load
 * balancer still gets the health status and its code from anyone.
 */

let node: TestNode;
before(async () => {
  node = await startTestNode();
});
after(async () => node?.stop());

const isState = (frame: SseFrame) => frame.kind === 'event' && frame.event === 'state';

for (const engine of testDatabases()) {
  describe(`the private mempool's aggregates (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    let base: string;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, node, { mempool: { consistency: 'latest' } });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      await until(async () => t.mempool.feed.current() !== null && (await health('nobody')).statusCode === 200, async () => 'no projection yet');
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const headers = (who: Who | 'forged'): Record<string, string> =>
      who === 'nobody' ? {} : { authorization: `Bearer ${who === 'forged' ? 'not-a-token' : t.tokens[who]}` };
    const request = (url: string, who: Who | 'forged') => t.app.inject({ method: 'GET', url, headers: headers(who) });
    const health = async (who: Who | 'forged') => {
      const res = await request('/rest-api/health', who);
      return { statusCode: res.statusCode, body: res.json<Partial<HealthResponse>>() };
    };
    const streamAs = (who: Who | 'forged') => openEventStream(`${base}/mempool/api/stream`, { headers: headers(who) });

    /** As an administrator does it, through the Settings API (and so into the setting logs). */
    async function setPublicView(value: boolean): Promise<void> {
      const view = await t.call<SettingsResponse>('GET', '/rest-api/settings/view');
      const setting = view.body.result.find((s) => s.item === 'public_mempool_view');
      assert.ok(setting, 'the public_mempool_view setting exists');
      const res = await t.call<SettingsResponse>('POST', '/rest-api/settings/update', { body: [{ id: setting.id, item: setting.item, value: String(value) }] });
      assert.equal(res.statusCode, 200, JSON.stringify(res.body));
    }

    test('by default the /mempool/ state needs a staff token: 401 in the API\'s error shape without one; any staff member may see it', async () => {
      for (const who of ['nobody', 'forged'] as const) {
        const res = await request('/mempool/api/state', who);
        assert.equal(res.statusCode, 401, `${who}: ${res.body}`);
        const body = res.json<{ status: string; message: string }>();
        assert.equal(body.status, 'error');
        assert.equal(res.body.includes('txCount'), false, 'nothing of the state');
        if (who === 'nobody') assert.equal(body.message, MEMPOOL_VIEW_PRIVATE_MESSAGE);
      }
      for (const who of ['viewer', 'admin'] as const) {
        const res = await request('/mempool/api/state', who);
        assert.equal(res.statusCode, 200);
        assert.ok(Value.Check(MempoolStateResponse, res.json()));
      }
    });

    test('by default the /mempool/ stream needs a staff token too, checked before it opens', { timeout: 15_000 }, async () => {
      for (const who of ['nobody', 'forged'] as const) {
        await assert.rejects(streamAs(who), (error: Error & { statusCode?: number; body?: string }) => {
          assert.equal(error.statusCode, 401);
          assert.equal((JSON.parse(error.body!) as { status: string }).status, 'error');
          return true;
        });
      }
      const stream = await streamAs('viewer');
      try {
        const frame = await stream.waitFor(isState);
        assert.ok(Value.Check(MempoolStateResponse, JSON.parse((frame as { data: string }).data)));
      } finally {
        stream.close();
      }
    });

    test('health: anonymous callers get the status alone, with its code; staff get the checks', async () => {
      const anonymous = await health('nobody');
      assert.equal(anonymous.statusCode, 200);
      assert.deepEqual(anonymous.body, { status: 'ok' });
      assert.deepEqual((await health('forged')).body, { status: 'ok' }, 'a token that does not verify is nobody\'s');
      const staff = await health('viewer');
      assert.equal(staff.statusCode, 200);
      assert.equal(staff.body.status, 'ok');
      assert.equal(staff.body.checks?.node.ok, true);
      assert.equal(typeof staff.body.checks?.mempool.tx_count, 'number');
    });

    test('health: degraded is 503 for anonymous callers too, still with the status alone', async () => {
      await node.halt();
      try {
        await until(async () => (await health('nobody')).statusCode === 503, async () => JSON.stringify((await health('viewer')).body), 20_000);
        assert.deepEqual((await health('nobody')).body, { status: 'degraded' });
        const staff = await health('viewer');
        assert.equal(staff.statusCode, 503);
        assert.equal(staff.body.checks?.node.ok, false);
      } finally {
        await node.restart();
      }
      await until(async () => (await health('nobody')).statusCode === 200, async () => JSON.stringify((await health('viewer')).body), 30_000);
    });

    test('metrics without METRICS_TOKEN: refused anonymously, served for a staff token', async () => {
      for (const who of ['nobody', 'forged'] as const) {
        const res = await request('/rest-api/metrics', who);
        assert.equal(res.statusCode, 401, who);
        assert.doesNotMatch(res.body, /slipstream_/);
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"');
        if (who === 'nobody') assert.equal(res.json<{ message: string }>().message, METRICS_PRIVATE_MESSAGE);
      }
      const res = await request('/rest-api/metrics', 'viewer');
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /^slipstream_mempool_transactions /m);
    });

    test('with the public mempool view on, all of them are public again; off, private again', { timeout: 20_000 }, async () => {
      await setPublicView(true);
      try {
        const state = await request('/mempool/api/state', 'nobody');
        assert.equal(state.statusCode, 200);
        assert.ok(Value.Check(MempoolStateResponse, state.json()));
        // A token that does not verify does not matter when the view is public.
        assert.equal((await request('/mempool/api/state', 'forged')).statusCode, 200);
        const stream = await streamAs('nobody');
        try {
          await stream.waitFor(isState);
        } finally {
          stream.close();
        }
        const anonymous = await health('nobody');
        assert.equal(anonymous.statusCode, 200);
        assert.equal(anonymous.body.checks?.node.ok, true);
        const metrics = await request('/rest-api/metrics', 'nobody');
        assert.equal(metrics.statusCode, 200);
        assert.match(metrics.body, /^slipstream_mempool_transactions /m);
      } finally {
        await setPublicView(false);
      }
      assert.equal((await request('/mempool/api/state', 'nobody')).statusCode, 401);
      await assert.rejects(streamAs('nobody'), (error: { statusCode?: number }) => error.statusCode === 401);
      assert.deepEqual((await health('nobody')).body, { status: 'ok' });
      assert.equal((await request('/rest-api/metrics', 'nobody')).statusCode, 401);
    });
  });
}
