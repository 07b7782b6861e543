import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClientLogListResponse, DiscountLogListResponse, SettingLogListResponse } from '../src/modules/change-logs/change-logs.schemas.ts';
import type { DiscountRow } from '../src/modules/discounts/discounts.schemas.ts';
import type { SettingsResponse } from '../src/modules/settings/settings.schemas.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { startStaffTestApp, type StaffTestApp, type Who } from './helpers/staff-app.ts';

/**
 * The Setting, Discount and Client Logs tabs (docs/behaviour.md#logs):
 * /rest-api/setting-logs/list, /discount-logs/list and /client-logs/list,
 * over entries written by the dashboard's own API as two administrators.
 */

interface ErrorBody {
  message?: string;
}

for (const engine of testDatabases()) {
  describe(`change log lists (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    const codes: string[] = [];

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db);
      const ok = async (res: Promise<{ statusCode: number; body: unknown }>) => {
        const r = await res;
        assert.equal(r.statusCode, 200, JSON.stringify(r.body));
        return r.body;
      };
      // Clients: root creates three, Rita updates one and deletes another.
      for (const name of ['Acme Mining', 'Acme Labs', 'Beta Pool']) await ok(t.call('POST', '/rest-api/client/add', { body: { name } }));
      const clients = (await db.query<{ id: number; name: string }>('SELECT id, name FROM clients')).rows;
      const id = (name: string) => clients.find((c) => c.name === name)!.id;
      await ok(t.call('POST', `/rest-api/client/update/${id('Acme Labs')}`, { body: { name: 'Acme Labs', email: 'labs@acme.example' }, as: 'admin2' }));
      await ok(t.call('DELETE', `/rest-api/client/delete/${id('Beta Pool')}`, { as: 'admin2' }));
      // Discounts: root creates two, Rita updates the first and deletes the second.
      const form = { client_name: 'Acme Mining', discount_percentage: 10, valid_from: '2025-01-01 00:00:00', valid_until: '2030-01-01 23: 59: 59' };
      for (let i = 0; i < 2; i++) codes.push(((await ok(t.call('POST', '/rest-api/client-code/add', { body: form }))) as DiscountRow).code);
      const discountId = async (code: string) => (await db.query<{ id: number }>('SELECT id FROM discount_codes WHERE code = $1', [code])).rows[0]!.id;
      await ok(t.call('POST', `/rest-api/client-code/update/${await discountId(codes[0]!)}`, { body: { ...form, discount_percentage: 20 }, as: 'admin2' }));
      await ok(t.call('DELETE', `/rest-api/client-code/delete/${await discountId(codes[1]!)}`, { as: 'admin2' }));
      // Settings: root changes the floor twice, Rita the multiplier once.
      const settings = ((await ok(t.call('GET', '/rest-api/settings/view'))) as SettingsResponse).result;
      const setting = (item: string) => settings.find((s) => s.item === item)!;
      await ok(t.call('POST', '/rest-api/settings/update', { body: [{ id: setting('fee_rate_floor').id, item: 'fee_rate_floor', value: '3' }] }));
      await ok(t.call('POST', '/rest-api/settings/update', { body: [{ id: setting('fee_rate_floor').id, item: 'fee_rate_floor', value: '4' }] }));
      await ok(t.call('POST', '/rest-api/settings/update', { body: [{ id: setting('slipstream_multiplier').id, item: 'slipstream_multiplier', value: '3' }], as: 'admin2' }));
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const settingLogs = (query: Record<string, string>, as: Who = 'viewer') => t.call<SettingLogListResponse & ErrorBody>('GET', '/rest-api/setting-logs/list', { query, as });
    const discountLogs = (query: Record<string, string>, as: Who = 'viewer') => t.call<DiscountLogListResponse & ErrorBody>('GET', '/rest-api/discount-logs/list', { query, as });
    const clientLogs = (query: Record<string, string>, as: Who = 'viewer') => t.call<ClientLogListResponse & ErrorBody>('GET', '/rest-api/client-logs/list', { query, as });

    test('setting logs: newest first with who, what and when; filtered by item and by username prefix', async () => {
      const all = await settingLogs({});
      assert.equal(all.statusCode, 200, all.body.message);
      assert.deepEqual(all.body.result.map((r) => [r.item, r.username, r.previous_value, r.updated_value]), [
        ['slipstream_multiplier', 'Rita.Admin', '2', '3'],
        ['fee_rate_floor', 'root', '3', '4'],
        ['fee_rate_floor', 'root', '2', '3'],
      ]);
      assert.equal(all.body.total_records, 3);
      assert.ok(Math.abs(Date.parse(all.body.result[0]!.updated_time) - Date.now()) < 60_000);
      assert.deepEqual(Object.keys(all.body.result[0]!).sort(), ['email', 'id', 'item', 'previous_value', 'updated_time', 'updated_value', 'username']);

      assert.equal((await settingLogs({ item: 'fee_rate_floor' })).body.total_records, 2);
      assert.equal((await settingLogs({ item: 'Fee Rate Floor' })).body.total_records, 2, 'as the table shows the name');
      assert.equal((await settingLogs({ item: 'fee_rate' })).body.total_records, 0, 'the item exactly');
      assert.equal((await settingLogs({ username: 'RITA' })).body.total_records, 1);
      assert.equal((await settingLogs({ username: 'ro', item: 'fee_rate_floor' })).body.total_records, 2);
      assert.equal((await settingLogs({ username: 'ro', item: 'slipstream_multiplier' })).body.total_records, 0);
    });

    test('discount logs: the JSON of before and after, filtered by exact code, username prefix and action', async () => {
      const all = await discountLogs({});
      assert.equal(all.statusCode, 200, all.body.message);
      assert.deepEqual(all.body.result.map((r) => [r.action, r.username, r.client_code]), [
        ['Delete', 'Rita.Admin', codes[1]],
        ['Update', 'Rita.Admin', codes[0]],
        ['Create', 'root', codes[1]],
        ['Create', 'root', codes[0]],
      ]);
      const update = all.body.result[1]!;
      assert.equal(typeof update.previous_values, 'string', 'JSON text (docs/behaviour.md#data-shapes)');
      assert.deepEqual(JSON.parse(update.previous_values!), {
        code: codes[0], client_name: 'Acme Mining', description: null, discount_percentage: 10, valid_from: '2025-01-01 00:00:00', valid_until: '2030-01-01 23:59:59', status: true,
      });
      assert.equal((JSON.parse(update.updated_values!) as { discount_percentage: number }).discount_percentage, 20);
      assert.equal(all.body.result[0]!.updated_values, null, 'a delete has no after');
      assert.equal(all.body.result[3]!.previous_values, null, 'a create has no before');

      assert.deepEqual((await discountLogs({ client_code: codes[0]! })).body.result.map((r) => r.action), ['Update', 'Create']);
      assert.equal((await discountLogs({ client_code: codes[0]!.toLowerCase() })).body.total_records, 0, 'the code exactly');
      assert.deepEqual((await discountLogs({ action: 'Delete' })).body.result.map((r) => r.client_code), [codes[1]]);
      assert.equal((await discountLogs({ action: 'All' })).body.total_records, 4);
      assert.equal((await discountLogs({ username: 'rita', action: 'Create' })).body.total_records, 0);
      assert.equal((await discountLogs({ username: 'rita' })).body.total_records, 2);
    });

    test('client logs: filtered by username prefix, client name prefix and action', async () => {
      const all = await clientLogs({});
      assert.equal(all.statusCode, 200, all.body.message);
      assert.deepEqual(all.body.result.map((r) => [r.action, r.username, r.client_name]), [
        ['Delete', 'Rita.Admin', 'Beta Pool'],
        ['Update', 'Rita.Admin', 'Acme Labs'],
        ['Create', 'root', 'Beta Pool'],
        ['Create', 'root', 'Acme Labs'],
        ['Create', 'root', 'Acme Mining'],
      ]);
      const update = all.body.result[1]!;
      assert.equal((JSON.parse(update.previous_values!) as { email: string | null }).email, null);
      assert.equal((JSON.parse(update.updated_values!) as { email: string | null }).email, 'labs@acme.example');
      assert.deepEqual(Object.keys(update).sort(), ['action', 'client_name', 'email', 'id', 'previous_values', 'timestamp', 'updated_values', 'username']);

      assert.deepEqual((await clientLogs({ client_name: 'acme' })).body.result.map((r) => r.client_name), ['Acme Labs', 'Acme Labs', 'Acme Mining']);
      assert.equal((await clientLogs({ client_name: 'acme l', action: 'Update' })).body.total_records, 1);
      assert.equal((await clientLogs({ username: 'ROOT' })).body.total_records, 3);
      assert.equal((await clientLogs({ action: 'Delete', username: 'root' })).body.total_records, 0);
    });

    test('paging: page and limit, totals over all pages, bounds and unknown parameters refused', async () => {
      const page2 = await clientLogs({ page: '2', limit: '10' });
      assert.deepEqual(page2.body, { result: [], total_pages: 1, total_records: 5 });
      for (const list of [settingLogs, discountLogs, clientLogs]) {
        const bad: Array<Record<string, string>> = [{ limit: '5' }, { page: '0' }, { nope: '1' }];
        for (const query of bad) {
          const res = await list(query);
          assert.equal(res.statusCode, 400, JSON.stringify(query));
          assert.ok(res.body.message, 'with a message');
        }
      }
      assert.equal((await discountLogs({ action: 'create' })).statusCode, 400, 'actions are Create, Update, Delete or All');
      // Many entries: 23 setting changes page as 10 + 10 + 3.
      const { id } = (await db.query<{ id: number }>("SELECT id FROM settings WHERE item = 'pool_coinbase_tag'")).rows[0]!;
      for (let i = 0; i < 23; i++) {
        const res = await t.call('POST', '/rest-api/settings/update', { body: [{ id, item: 'pool_coinbase_tag', value: `/tag ${i}/` }] });
        assert.equal(res.statusCode, 200);
      }
      const first = await settingLogs({ item: 'pool_coinbase_tag' });
      assert.equal(first.body.total_pages, 3);
      assert.equal(first.body.result[0]!.updated_value, '/tag 22/');
      const last = await settingLogs({ item: 'pool_coinbase_tag', page: '3' });
      assert.deepEqual(last.body.result.map((r) => r.updated_value), ['/tag 2/', '/tag 1/', '/tag 0/']);
      const twenty = await settingLogs({ item: 'pool_coinbase_tag', limit: '20', page: '2' });
      assert.equal(twenty.body.result.length, 3);
    });

    test('SQL and LIKE metacharacters in every filter find nothing and break nothing', async () => {
      const evil = ["' OR '1'='1", "x'; DROP TABLE setting_logs; --", '%', '_', '\\'];
      for (const text of evil) {
        for (const [list, fields] of [[settingLogs, ['item', 'username']], [discountLogs, ['client_code', 'username']], [clientLogs, ['username', 'client_name']]] as const) {
          for (const field of fields) {
            const res = await list({ [field]: text });
            assert.equal(res.statusCode, 200, `${field}=${text}`);
            assert.deepEqual(res.body, { result: [], total_pages: 0, total_records: 0 }, `${field}=${text}`);
          }
        }
      }
      assert.ok((await settingLogs({})).body.total_records > 20);
    });

    test('any signed-in staff member may read the logs; nobody else', async () => {
      for (const list of [settingLogs, discountLogs, clientLogs]) {
        assert.equal((await list({}, 'viewer')).statusCode, 200);
        assert.equal((await list({}, 'admin')).statusCode, 200);
        assert.equal((await list({}, 'nobody')).statusCode, 401);
      }
    });
  });
}
