import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AppOptions } from '../../src/app.ts';
import { startStaffTestApp, type StaffTestApp } from '../helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';

/**
 * Client addresses come from forwarding headers only behind a proxy the
 * operator trusts (TRUST_PROXY), so a made-up X-Forwarded-For buys no fresh
 * rate-limit allowance:
 * - trusting no proxy (the default), N+1 requests over one connection with a
 *   different X-Forwarded-For each are limited as the one client they are;
 * - behind a trusted proxy (a list of addresses, or a hop count), the limit
 *   keys on the address the proxy forwards, so two clients behind it are
 *   two clients; an extra hop the client wrote before the proxy's own entry
 *   changes nothing (the right-most address not trusted is the client's);
 * - 'true' (every hop trusted) takes the left-most address, which a client
 *   can write: the configuration reference says so, and the test shows it.
 * The audit trail records the same address the limit uses.
 */

const LIMIT = 4;

/** GETs over one kept-alive connection, in order; the statuses, and whether every one after the first reused the connection. */
async function overOneConnection(port: number, path: string, headers: Array<Record<string, string>>): Promise<{ statuses: number[]; reused: boolean }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses: number[] = [];
  let reused = true;
  try {
    for (const [i, extra] of headers.entries()) {
      statuses.push(
        await new Promise<number>((resolve, reject) => {
          const request = http.get({ host: '127.0.0.1', port, path, agent, headers: extra }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          if (i > 0) request.on('socket', () => (reused &&= request.reusedSocket));
          request.on('error', reject);
        }),
      );
    }
  } finally {
    agent.destroy();
  }
  return { statuses, reused };
}

const expected = (n: number) => [...Array<number>(LIMIT).fill(200), ...Array<number>(n - LIMIT).fill(429)];

describe('rate limits and forwarded client addresses', () => {
  let db: TestDatabase;
  const apps: StaffTestApp[] = [];

  before(async () => {
    db = await testDatabases()[0]!.open();
  });

  after(async () => {
    for (const app of apps) await app.close();
    await db?.close();
  });

  async function start(trustProxy: AppOptions['trustProxy']): Promise<{ t: StaffTestApp; port: number }> {
    const t = await startStaffTestApp(apps.length === 0 ? db : await db.openPeer(), undefined, { rateLimitMax: LIMIT, trustProxy });
    apps.push(t);
    return { t, port: Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port) };
  }

  const addressesAudited = async (t: StaffTestApp, after: number) => {
    await t.audit.flush();
    const { rows } = await db.query<{ ip_address: string }>("SELECT DISTINCT ip_address FROM audit_logs WHERE id > $1 AND endpoint = '/rest-api/site-info' ORDER BY 1", [after]);
    return rows.map((r) => r.ip_address);
  };
  const lastId = async () => (await db.query<{ id: number | null }>('SELECT max(id) AS id FROM audit_logs')).rows[0]?.id ?? 0;

  test('trusting no proxy: a different X-Forwarded-For on each request does not dodge the limit', async () => {
    const { t, port } = await start(false);
    const from = await lastId();
    const spoofed = Array.from({ length: LIMIT + 2 }, (_, i) => ({ 'x-forwarded-for': `198.51.100.${i + 1}`, 'x-real-ip': `198.51.100.${i + 1}`, forwarded: `for=198.51.100.${i + 1}` }));
    const { statuses, reused } = await overOneConnection(port, '/rest-api/site-info', spoofed);
    assert.ok(reused, 'the requests shared one connection');
    assert.deepEqual(statuses, expected(LIMIT + 2));
    assert.deepEqual(await addressesAudited(t, from), ['127.0.0.1'], 'the audit trail has the connection\'s address, not the headers\'');
  });

  const proxies: Array<[string, AppOptions['trustProxy']]> = [['a list of proxy addresses', ['127.0.0.1']], ['a hop count', 1]];
  for (const [what, trustProxy] of proxies) {
    test(`behind a trusted proxy (${what}): the limit keys on the forwarded client, and a hop the client made up does not help`, async () => {
      const { t, port } = await start(trustProxy);
      const from = await lastId();
      // Client A through the proxy: limited after LIMIT requests.
      const a = await overOneConnection(port, '/rest-api/site-info', Array.from({ length: LIMIT + 1 }, () => ({ 'x-forwarded-for': '203.0.113.10' })));
      assert.deepEqual(a.statuses, expected(LIMIT + 1));
      // Client A again, having written a different address before the proxy's entry: still client A.
      const spoof = await overOneConnection(port, '/rest-api/site-info', Array.from({ length: 3 }, (_, i) => ({ 'x-forwarded-for': `192.0.2.${i + 1}, 203.0.113.10` })));
      assert.deepEqual(spoof.statuses, [429, 429, 429]);
      // Client B through the same proxy (the same connection address) has its own allowance.
      const b = await overOneConnection(port, '/rest-api/site-info', [{ 'x-forwarded-for': '203.0.113.20' }]);
      assert.deepEqual(b.statuses, [200]);
      assert.deepEqual(await addressesAudited(t, from), ['203.0.113.10', '203.0.113.20']);
    });
  }

  test("TRUST_PROXY=true trusts every hop: the left-most address wins, which a client can write (why a list or a hop count is the setting to use)", async () => {
    const { port } = await start(true);
    const rotating = await overOneConnection(port, '/rest-api/site-info', Array.from({ length: LIMIT + 2 }, (_, i) => ({ 'x-forwarded-for': `192.0.2.${i + 1}, 203.0.113.30` })));
    assert.deepEqual(rotating.statuses, Array<number>(LIMIT + 2).fill(200));
  });
});
