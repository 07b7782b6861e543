import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../src/lib/clock.ts';
import type { SettingRow, SettingsResponse } from '../src/modules/settings/settings.schemas.ts';
import { createSettingsService } from '../src/modules/settings/settings.service.ts';
import { createSettingsStore } from '../src/modules/settings/settings.store.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { breakInserts, startStaffTestApp, type StaffTestApp, type Who } from './helpers/staff-app.ts';

/**
 * The Settings screen's API (docs/behaviour.md#settings):
 * /rest-api/settings/view and /rest-api/settings/update, with the setting log
 * written in the update's transaction. The effect on pricing and maintenance
 * through the public API is in back-office-effects.test.ts.
 */

interface ErrorBody {
  status: 'error';
  message: string;
  errors?: Record<string, string>;
}

/** Addresses from Bitcoin Core's key_io_valid.json: one of the tests' network (regtest), one of mainnet. */
const REGTEST_ADDRESS = 'bcrt1qdavt4j2sd7dlhqsavtnfxvzppw6k7qy97tmnu9';
const REGTEST_LEGACY = 'mfhE6jAUwjUDNZhaX1PAsDTKfneQF2Nshc';
const MAINNET_ADDRESS = 'bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv';

interface SettingLog {
  setting_id: number | null;
  item: string;
  username: string;
  previous_value: string;
  updated_value: string;
}

for (const engine of testDatabases()) {
  describe(`settings API (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    let byItem: Map<string, SettingRow>;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db);
      byItem = new Map((await view()).body.result.map((s) => [s.item, s]));
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const view = (as: Who = 'viewer') => t.call<SettingsResponse & ErrorBody>('GET', '/rest-api/settings/view', { as });
    const save = (body: unknown, as: Who = 'admin') => t.call<SettingsResponse & ErrorBody>('POST', '/rest-api/settings/update', { body, as });
    /** One setting as the edit form sends it. */
    const entry = (item: string, value: string | number | boolean | null, description?: string) => {
      const s = byItem.get(item)!;
      return { id: s.id, item, value, ...(description === undefined ? {} : { description }) };
    };
    const values = async () => Object.fromEntries((await db.query<{ item: string; value: string }>('SELECT item, value FROM settings')).rows.map((r) => [r.item, r.value]));
    const logs = async (item: string) =>
      (await db.query<SettingLog>('SELECT setting_id, item, username, previous_value, updated_value FROM setting_logs WHERE item = $1 ORDER BY id', [item])).rows;

    test('view lists every setting with its type and bounds, for any staff member', async () => {
      const res = await view();
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.body.result.map((s) => [s.item, s.value_type, s.min_value, s.max_value]), [
        ['fee_rate_floor', 'number', 0, null],
        ['slipstream_multiplier', 'number', 1, 100],
        ['contact_email', 'email', null, null],
        ['company_url', 'url', null, null],
        ['maintenance_mode', 'boolean', null, null],
        ['pool_coinbase_tag', 'text', null, null],
        ['pool_payout_addresses', 'text', null, null],
        ['public_mempool_view', 'boolean', null, null],
        ['quote_validity_minutes', 'number', 1, 1440],
        ['pool_name', 'text', null, null],
      ]);
      const floor = res.body.result[0]!;
      assert.deepEqual(Object.keys(floor).sort(), ['description', 'id', 'item', 'max_value', 'min_value', 'required', 'updated_at', 'value', 'value_type']);
      assert.deepEqual(res.body.result.filter((s) => !s.required).map((s) => s.item), ['pool_coinbase_tag', 'pool_payout_addresses'], 'the pool identification is optional');
      assert.equal(floor.value, '2');
      assert.match(floor.description, /fee rate/i);
      assert.equal((await view('admin')).statusCode, 200);
      assert.equal((await view('nobody')).statusCode, 401);
      assert.equal((await t.call('GET', '/rest-api/settings/view', { query: { x: '1' } })).statusCode, 400);
    });

    test('an update answers the settings as changed, writes one log entry per changed value, and the settings store reads it', async () => {
      const res = await save([entry('fee_rate_floor', ' 3.5 '), entry('contact_email', 'desk@pool.example', 'Where users write')]);
      assert.equal(res.statusCode, 200, res.body.message);
      assert.deepEqual(res.body.result.map((s) => [s.item, s.value, s.description]), [
        ['fee_rate_floor', '3.5', byItem.get('fee_rate_floor')!.description],
        ['contact_email', 'desk@pool.example', 'Where users write'],
      ]);
      assert.ok(Date.parse(res.body.result[0]!.updated_at) > Date.parse(byItem.get('fee_rate_floor')!.updated_at));
      assert.deepEqual(await logs('fee_rate_floor'), [{ setting_id: byItem.get('fee_rate_floor')!.id, item: 'fee_rate_floor', username: 'root', previous_value: '2', updated_value: '3.5' }]);
      assert.deepEqual((await logs('contact_email')).map((l) => [l.previous_value, l.updated_value]), [['blocks@example.com', 'desk@pool.example']]);
      const current = await t.settings.get();
      assert.equal(current.feeRateFloor, 3.5);
      assert.equal(current.contactEmail, 'desk@pool.example');

      // The same values again change nothing and log nothing; a new description alone is saved but is not a value change.
      await save([entry('fee_rate_floor', '3.5')]);
      await save([entry('fee_rate_floor', '3.5', 'Lowest rate, sat/vB')]);
      assert.equal((await logs('fee_rate_floor')).length, 1);
      assert.equal((await view()).body.result.find((s) => s.item === 'fee_rate_floor')!.description, 'Lowest rate, sat/vB');
      assert.equal((await save([entry('fee_rate_floor', 2), entry('contact_email', 'blocks@example.com')])).statusCode, 200, 'numbers are taken as numbers');
      assert.equal((await values()).fee_rate_floor, '2');
    });

    test('an optional setting can be set, emptied again, and saved unchanged while empty', async () => {
      for (const item of ['pool_coinbase_tag', 'pool_payout_addresses']) {
        const set = await save([entry(item, item === 'pool_coinbase_tag' ? '/Pool/' : REGTEST_ADDRESS)]);
        assert.equal(set.statusCode, 200, set.body.message);
        const emptied = await save([entry(item, '  ')]);
        assert.equal(emptied.statusCode, 200, emptied.body.message);
        assert.equal((await values())[item], '');
        // The edit dialog sends the stored value back as it is: empty.
        const unchanged = await save([entry(item, '', 'Who we are')]);
        assert.equal(unchanged.statusCode, 200, unchanged.body.message);
        assert.deepEqual((await logs(item)).map((l) => l.updated_value), [item === 'pool_coinbase_tag' ? '/Pool/' : REGTEST_ADDRESS, '']);
      }
      assert.equal((await t.settings.get()).poolCoinbaseTag, '');
    });

    test('each value is checked against its type with a clear message', async () => {
      const before = await values();
      const cases: Array<[string, string | number | null, string]> = [
        ['fee_rate_floor', '', 'Value is required'],
        ['fee_rate_floor', '   ', 'Value is required'],
        ['fee_rate_floor', null, 'Value is required'],
        ['contact_email', '', 'Value is required'],
        ['fee_rate_floor', 'cheap', 'Value must be a number, e.g. 2 or 2.5'],
        ['fee_rate_floor', '1e3', 'Value must be a number, e.g. 2 or 2.5'],
        ['fee_rate_floor', '-1', 'Value must be at least 0'],
        ['fee_rate_floor', -0.5, 'Value must be at least 0'],
        ['slipstream_multiplier', '0.5', 'Value must be between 1 and 100'],
        ['slipstream_multiplier', '100.01', 'Value must be between 1 and 100'],
        ['maintenance_mode', 'yes', "Value must be 'true' or 'false'"],
        ['contact_email', 'blocks', 'Value must be an email address'],
        ['company_url', 'example.com', 'Value must be a web address starting with http:// or https://'],
        ['company_url', 'javascript:alert(1)', 'Value must be a web address starting with http:// or https://'],
      ];
      for (const [item, value, message] of cases) {
        const res = await save([entry(item, value)]);
        assert.equal(res.statusCode, 400, `${item} ${String(value)}`);
        assert.equal(res.body.message, message, `${item} ${String(value)}`);
        assert.deepEqual(res.body.errors, { [item]: message }, `${item} ${String(value)}`);
      }
      const missing = await save([{ id: byItem.get('fee_rate_floor')!.id, item: 'fee_rate_floor' }]);
      assert.equal(missing.body.message, 'Value is required');
      assert.deepEqual(await values(), before);
      assert.equal((await logs('maintenance_mode')).length, 0);
    });

    test('all or nothing: one bad value leaves every setting as it was, and every bad value is named', async () => {
      const before = await values();
      const res = await save([entry('fee_rate_floor', '7'), entry('slipstream_multiplier', '500'), entry('maintenance_mode', 'maybe')]);
      assert.equal(res.statusCode, 400);
      assert.equal(res.body.message, 'Value must be between 1 and 100');
      assert.deepEqual(res.body.errors, { slipstream_multiplier: 'Value must be between 1 and 100', maintenance_mode: "Value must be 'true' or 'false'" });
      assert.deepEqual(await values(), before);
      assert.equal((await logs('fee_rate_floor')).filter((l) => l.updated_value === '7').length, 0);
    });

    test('unknown settings, a mismatched item, repeats, an empty list and unknown fields are refused', async () => {
      const before = await values();
      const unknown = await save([{ id: 9999, item: 'fee_rate_floor', value: '1' }]);
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.body.message, 'Setting 9999 does not exist.');
      const mismatch = await save([{ id: byItem.get('fee_rate_floor')!.id, item: 'maintenance_mode', value: 'true' }]);
      assert.equal(mismatch.statusCode, 400);
      assert.equal(mismatch.body.message, "Setting 1 is 'fee_rate_floor', not 'maintenance_mode'. Reload the settings and try again.".replace('Setting 1', `Setting ${byItem.get('fee_rate_floor')!.id}`));
      const twice = await save([entry('fee_rate_floor', '1'), entry('fee_rate_floor', '2')]);
      assert.equal(twice.statusCode, 400);
      assert.match(twice.body.message, /listed more than once/);
      assert.equal((await save([])).statusCode, 400);
      assert.equal((await save(entry('fee_rate_floor', '1'))).statusCode, 400, 'an array, not one object');
      for (const extra of [{ color: 'red' }, { valueType: 'text' }]) {
        const res = await save([{ ...entry('fee_rate_floor', '1'), ...extra }]);
        assert.equal(res.statusCode, 400, JSON.stringify(extra));
        assert.match(res.body.message, new RegExp(`Unknown field '${Object.keys(extra)[0]}'`));
      }
      assert.deepEqual(await values(), before);
    });

    test('a row sent back as the view gave it, one value edited, is saved; its read-only fields are ignored', async () => {
      const row = (await view('admin')).body.result.find((s) => s.item === 'slipstream_multiplier')!;
      const res = await save([{ ...row, value: '3' }]);
      assert.equal(res.statusCode, 200, res.body.message);
      assert.equal((await values()).slipstream_multiplier, '3');
      // The bounds are the stored ones, whatever the row sent says.
      const loosened = await save([{ ...row, value: '500', min_value: 0, max_value: 1000, value_type: 'text', required: false, updated_at: '2020-01-01T00:00:00.000Z' }]);
      assert.equal(loosened.statusCode, 400);
      assert.equal(loosened.body.message, 'Value must be between 1 and 100');
      const typo = await save([{ ...row, value: '2', value_typ: 'number' }]);
      assert.equal(typo.statusCode, 400);
      assert.match(typo.body.message, /Unknown field 'value_typ'/);
      assert.equal((await save([{ ...row, value: '2' }])).statusCode, 200);
      assert.equal((await values()).slipstream_multiplier, '2');
    });

    test("payout addresses must be addresses of the node's network: a typo or another network's address is refused and named", async () => {
      const before = await values();
      const cases: Array<[string, string]> = [
        ['notanaddress', "Value must be regtest addresses separated by commas: 'notanaddress' is not an address"],
        [`${REGTEST_ADDRESS}, ${MAINNET_ADDRESS}`, `Value must be regtest addresses separated by commas: '${MAINNET_ADDRESS}' is a mainnet address, not regtest`],
        [`${REGTEST_ADDRESS.slice(0, -1)}8`, `Value must be regtest addresses separated by commas: '${REGTEST_ADDRESS.slice(0, -1)}8' has a wrong checksum (a typo?)`],
      ];
      for (const [value, message] of cases) {
        const res = await save([entry('pool_payout_addresses', value)]);
        assert.equal(res.statusCode, 400, value);
        assert.equal(res.body.message, message);
        assert.deepEqual(res.body.errors, { pool_payout_addresses: message });
      }
      assert.deepEqual(await values(), before);
      // Several, in any case, repeated, with blanks between commas: stored canonical (as the node writes them), once each.
      const ok = await save([entry('pool_payout_addresses', ` ${REGTEST_ADDRESS.toUpperCase()},, ${REGTEST_LEGACY} ,${REGTEST_ADDRESS}`)]);
      assert.equal(ok.statusCode, 200, ok.body.message);
      assert.equal((await values()).pool_payout_addresses, `${REGTEST_ADDRESS}, ${REGTEST_LEGACY}`);
      assert.deepEqual((await t.settings.get()).poolPayoutAddresses, [REGTEST_ADDRESS, REGTEST_LEGACY]);
      assert.equal((await save([entry('pool_payout_addresses', '')])).statusCode, 200);
    });

    test('the coinbase tag must fit in a coinbase', async () => {
      const longest = 'é'.repeat(47) + 'x'; // 95 bytes
      assert.equal((await save([entry('pool_coinbase_tag', longest)])).statusCode, 200);
      const res = await save([entry('pool_coinbase_tag', `${longest}y`)]);
      assert.equal(res.statusCode, 400);
      assert.equal(res.body.message, 'The coinbase tag is 96 bytes; a coinbase has room for 95 at most beside the block height');
      assert.equal((await values()).pool_coinbase_tag, longest);
      assert.equal((await save([entry('pool_coinbase_tag', '')])).statusCode, 200);
    });

    test('the public mempool view is off by default; an administrator turns it on and off, each change in the setting log', async () => {
      assert.equal(byItem.get('public_mempool_view')?.value, 'false');
      assert.match(byItem.get('public_mempool_view')!.description, /mempool/);
      assert.equal((await t.settings.get()).publicMempoolView, false);
      assert.equal((await save([entry('public_mempool_view', 'on')])).body.message, "Value must be 'true' or 'false'");
      assert.equal((await save([entry('public_mempool_view', 'true')], 'viewer')).statusCode, 403);
      const on = await save([entry('public_mempool_view', true)]);
      assert.equal(on.statusCode, 200, on.body.message);
      assert.equal(on.body.result[0]!.value, 'true');
      assert.equal((await t.settings.get()).publicMempoolView, true);
      assert.equal((await save([entry('public_mempool_view', 'false')], 'admin2')).statusCode, 200);
      assert.equal((await t.settings.get()).publicMempoolView, false);
      assert.deepEqual(await logs('public_mempool_view'), [
        { setting_id: byItem.get('public_mempool_view')!.id, item: 'public_mempool_view', username: 'root', previous_value: 'false', updated_value: 'true' },
        { setting_id: byItem.get('public_mempool_view')!.id, item: 'public_mempool_view', username: 'Rita.Admin', previous_value: 'true', updated_value: 'false' },
      ]);
    });

    test('viewers get 403 and strangers 401 on update; nothing changes', async () => {
      const before = await values();
      for (const [as, status] of [['viewer', 403], ['nobody', 401]] as const) {
        const res = await save([entry('maintenance_mode', 'true')], as);
        assert.equal(res.statusCode, status);
      }
      assert.deepEqual(await values(), before);
      assert.equal((await logs('maintenance_mode')).length, 0);
    });

    test('a change and its log entries commit together: when a log insert fails, every value rolls back', async () => {
      const before = await values();
      const restore = await breakInserts(db, 'setting_logs');
      try {
        const res = await save([entry('company_url', 'https://pool.example'), entry('fee_rate_floor', '4')]);
        assert.equal(res.statusCode, 500);
        assert.deepEqual(await values(), before);
        assert.equal((await t.settings.get()).feeRateFloor, Number(before.fee_rate_floor));
      } finally {
        await restore();
      }
    });

    test('the settings cache is dropped by an update, so a change applies at once even with a long cache', async () => {
      const store = createSettingsStore(db, systemClock, { ttlMs: 3_600_000 });
      assert.equal((await store.get()).maintenanceMode, false);
      const service = createSettingsService({ db, settings: store, network: 'regtest' });
      await service.update([entry('maintenance_mode', 'TRUE')], 'root');
      assert.equal((await store.get()).maintenanceMode, true);
      assert.equal((await values()).maintenance_mode, 'true', 'stored in lower case');
      await service.update([entry('maintenance_mode', false)], 'root');
      assert.equal((await store.get()).maintenanceMode, false);
      assert.deepEqual((await logs('maintenance_mode')).map((l) => [l.previous_value, l.updated_value]), [['false', 'true'], ['true', 'false']]);
    });
  });
}
