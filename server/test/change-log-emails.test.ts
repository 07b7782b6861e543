import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalIssuer } from '../src/auth/local-issuer.ts';
import type { TokenVerifier } from '../src/auth/token-verifier.ts';
import { systemClock } from '../src/lib/clock.ts';
import type { ClientLogListResponse, DiscountLogListResponse, SettingLogListResponse } from '../src/modules/change-logs/change-logs.schemas.ts';
import type { SettingsResponse } from '../src/modules/settings/settings.schemas.ts';
import { ADMIN_GROUP, absentNodeRpc, CLIENT_ID, staffToken, TEST_AUTH_KEY } from './helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The Logs tabs' Email column and filter (docs/behaviour.md#logs): the email of
 * the staff member who made the change, from their sign-in token, kept on
 * the log row beside their username. The identity provider's ID token
 * carries the email claim; here a verifier adds it to the portal's own
 * tokens, as the provider's verifier (auth/token-verifier.ts) reads it.
 * A local account's token has no email: its rows keep none.
 */

const EMAILS: Record<string, string> = { root: 'ops.lead@pool.example', 'Rita.Admin': 'rita@pool.example' };

for (const engine of testDatabases()) {
  describe(`the Logs tabs show and match staff emails (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    const tokens: Record<string, string> = {};

    const call = async <T>(method: 'GET' | 'POST', url: string, who: string, body?: unknown, query?: Record<string, string>) => {
      const res = await t.app.inject({
        method,
        url: `${url}${query ? `?${new URLSearchParams(query).toString()}` : ''}`,
        headers: { authorization: `Bearer ${tokens[who]}` },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<T>();
    };

    before(async () => {
      db = await engine.open();
      const issuer = createLocalIssuer({ db, clock: systemClock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
      const verifier: TokenVerifier = {
        async verify(token) {
          const identity = await issuer.verify(token);
          return { ...identity, email: EMAILS[identity.username] };
        },
      };
      t = await startTestApp(undefined, db, { rpc: await absentNodeRpc(), staff: { verifier, issuer, signIn: { issuer: 'https://issuer.example', clientId: CLIENT_ID } } });
      for (const who of ['root', 'Rita.Admin', 'local.admin']) tokens[who] = await staffToken(db, issuer, who, true);

      const settings = (await call<SettingsResponse>('GET', '/rest-api/settings/view', 'root')).result;
      const floor = settings.find((s) => s.item === 'fee_rate_floor')!;
      await call('POST', '/rest-api/settings/update', 'root', [{ id: floor.id, item: floor.item, value: '3' }]);
      await call('POST', '/rest-api/settings/update', 'local.admin', [{ id: floor.id, item: floor.item, value: '4' }]);
      await call('POST', '/rest-api/client/add', 'Rita.Admin', { name: 'Acme Mining' });
      await call('POST', '/rest-api/client-code/add', 'Rita.Admin', { client_name: 'Acme Mining', discount_percentage: 10, valid_from: '2025-01-01 00:00:00', valid_until: '2030-01-01 23: 59: 59' });
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    test('each log row has the email from the token beside the username; none for a local account', async () => {
      const settingLogs = await call<SettingLogListResponse>('GET', '/rest-api/setting-logs/list', 'root');
      assert.deepEqual(settingLogs.result.map((r) => [r.username, r.email]), [['local.admin', null], ['root', 'ops.lead@pool.example']]);
      const clientLogs = await call<ClientLogListResponse>('GET', '/rest-api/client-logs/list', 'root');
      assert.deepEqual(clientLogs.result.map((r) => [r.username, r.email]), [['Rita.Admin', 'rita@pool.example']]);
      const discountLogs = await call<DiscountLogListResponse>('GET', '/rest-api/discount-logs/list', 'root');
      assert.deepEqual(discountLogs.result.map((r) => [r.username, r.email]), [['Rita.Admin', 'rita@pool.example']]);
    });

    test('the Email filter matches the email (and, for rows without one, the username)', async () => {
      const settings = (username: string) => call<SettingLogListResponse>('GET', '/rest-api/setting-logs/list', 'root', undefined, { username });
      assert.deepEqual((await settings('OPS.lead@')).result.map((r) => r.username), ['root'], 'by email, ignoring case');
      assert.deepEqual((await settings('local')).result.map((r) => r.username), ['local.admin'], 'no email: by username');
      assert.equal((await settings('nobody@')).total_records, 0);
      const clients = await call<ClientLogListResponse>('GET', '/rest-api/client-logs/list', 'root', undefined, { username: 'rita@pool' });
      assert.equal(clients.total_records, 1);
      const discounts = await call<DiscountLogListResponse>('GET', '/rest-api/discount-logs/list', 'root', undefined, { username: 'rita@' });
      assert.equal(discounts.total_records, 1);
    });
  });
}
