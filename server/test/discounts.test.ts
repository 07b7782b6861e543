import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CODE_PATTERN } from '../src/modules/discounts/discount-codes.ts';
import type { DiscountListResponse, DiscountRow } from '../src/modules/discounts/discounts.schemas.ts';
import { createDiscountService } from '../src/modules/discounts/discounts.service.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { breakInserts, startStaffTestApp, type StaffTestApp, type Who } from './helpers/staff-app.ts';

/**
 * Discount Management's API (docs/behaviour.md#discount-management):
 * /rest-api/client-code/view, /add, /update/{id}, /delete/{id}, the codes the
 * server makes, and the discount log each change writes in its own transaction.
 * Pricing with a code made here is in back-office-effects.test.ts.
 */

interface ErrorBody {
  message: string;
  errors?: Record<string, string>;
}

interface DiscountLog {
  username: string;
  action: string;
  client_code: string;
  previous_values: Record<string, unknown> | null;
  updated_values: Record<string, unknown> | null;
}

const FORM = {
  client_name: 'Acme Mining',
  description: 'Launch offer',
  discount_percentage: 25,
  valid_from: '2025-01-01 00:00:00',
  // The dashboard's own spelling of an end time (docs/behaviour.md#dates-in-calls).
  valid_until: '2030-12-31 23: 59: 59',
};

for (const engine of testDatabases()) {
  describe(`discount management API (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db);
      for (const name of ['Acme Mining', 'Beta Pool']) assert.equal((await t.call('POST', '/rest-api/client/add', { body: { name } })).statusCode, 200);
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const add = (body: unknown, as: Who = 'admin') => t.call<DiscountRow & ErrorBody>('POST', '/rest-api/client-code/add', { body, as });
    const update = (id: number, body: unknown, as: Who = 'admin') => t.call<DiscountRow & ErrorBody>('POST', `/rest-api/client-code/update/${id}`, { body, as });
    const remove = (id: number, as: Who = 'admin') => t.call<ErrorBody & { status: 'success' | 'error' }>('DELETE', `/rest-api/client-code/delete/${id}`, { as });
    const list = (query: Record<string, string>, as: Who = 'viewer') => t.call<DiscountListResponse & ErrorBody>('GET', '/rest-api/client-code/view', { query, as });
    const logs = async (code: string) =>
      (await db.query<DiscountLog>('SELECT username, action, client_code, previous_values, updated_values FROM discount_logs WHERE client_code = $1 ORDER BY id', [code])).rows;
    const codeCount = async () => (await db.query<{ n: number }>('SELECT count(*) AS n FROM discount_codes')).rows[0]!.n;

    test('an administrator issues a code: the server makes it, it starts active, and the log records it', async () => {
      const res = await add(FORM);
      assert.equal(res.statusCode, 200, res.body.message);
      const row = res.body;
      assert.match(row.code, CODE_PATTERN);
      assert.deepEqual(row, {
        id: row.id,
        code: row.code,
        client_name: 'Acme Mining',
        description: 'Launch offer',
        discount_percentage: 25,
        valid_from: '2025-01-01 00:00:00',
        valid_until: '2030-12-31 23:59:59',
        status: true,
        created_at: row.created_at,
      });
      assert.ok(Math.abs(Date.parse(row.created_at) - Date.now()) < 60_000);
      // valid_until names the last second of validity: the code holds to its end.
      const stored = await db.query<{ valid_until: Date }>('SELECT valid_until FROM discount_codes WHERE id = $1', [row.id]);
      assert.equal(stored.rows[0]!.valid_until.toISOString(), '2030-12-31T23:59:59.999Z');
      assert.deepEqual(await logs(row.code), [{
        username: 'root',
        action: 'Create',
        client_code: row.code,
        previous_values: null,
        updated_values: { code: row.code, client_name: 'Acme Mining', description: 'Launch offer', discount_percentage: 25, valid_from: '2025-01-01 00:00:00', valid_until: '2030-12-31 23:59:59', status: true },
      }]);
    });

    test('generated codes are unique and unguessable in form: 10 symbols, no 0/O/1/I/L, no sequence', async () => {
      const codes: string[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await add({ ...FORM, client_name: 'Beta Pool', description: `bulk ${i}` });
        assert.equal(res.statusCode, 200, res.body.message);
        codes.push(res.body.code);
      }
      assert.equal(new Set(codes).size, codes.length);
      for (const code of codes) assert.match(code, /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{10}$/);
      // Consecutive codes share no more than chance: no counter, no common prefix.
      const shared = codes.slice(1).map((c, i) => [...c].filter((ch, j) => ch === codes[i]![j]).length);
      assert.ok(shared.reduce((a, b) => a + b, 0) / shared.length < 2, `mean shared positions ${String(shared)}`);
    });

    test('the code cannot be chosen or changed by the caller: a code field is refused', async () => {
      const before = await codeCount();
      const res = await add({ ...FORM, code: 'MYCODE' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.body.message, "Unknown field 'code' in the body.");
      for (const extra of [{ id: 1 }, { created_at: '2020-01-01 00:00:00' }, { client_id: 1 }]) {
        assert.equal((await add({ ...FORM, ...extra })).statusCode, 400, JSON.stringify(extra));
      }
      assert.equal(await codeCount(), before);
      const existing = (await list({ limit: '10' })).body.result[0]!;
      assert.equal((await update(existing.id, { ...FORM, code: 'MYCODE' })).statusCode, 400);
      assert.equal((await list({ client_code: existing.code })).body.result[0]!.code, existing.code);
    });

    test('a collision with an existing code is retried with a fresh one; a generator that only collides fails cleanly', async () => {
      const taken = (await list({ limit: '10' })).body.result[0]!.code;
      const sequence = [taken, taken, 'ZZZZZZZZZZ'];
      const service = createDiscountService(db, { generateCode: () => sequence.shift() ?? 'YYYYYYYYYY' });
      const created = await service.add({ ...FORM }, 'root');
      assert.equal(created.code, 'ZZZZZZZZZZ');
      assert.equal(sequence.length, 0, 'two collisions, then the fresh code');

      const before = await codeCount();
      const stuck = createDiscountService(db, { generateCode: () => taken });
      await assert.rejects(stuck.add({ ...FORM }, 'root'), /No unused client code after 5 attempts/);
      assert.equal(await codeCount(), before);
      assert.equal((await logs(taken)).length, 1, 'no log entry for the code that was not made');
    });

    test('each invalid field answers the documented message; nothing is written', async () => {
      const before = await codeCount();
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ discount_percentage: undefined }, 'discount_percentage', 'Required'],
        [{ discount_percentage: null }, 'discount_percentage', 'Required'],
        [{ discount_percentage: '' }, 'discount_percentage', 'Required'],
        [{ discount_percentage: '  ' }, 'discount_percentage', 'Required'],
        [{ discount_percentage: 100 }, 'discount_percentage', 'Must be between 0 and 99.'],
        [{ discount_percentage: -1 }, 'discount_percentage', 'Must be between 0 and 99.'],
        [{ discount_percentage: '100' }, 'discount_percentage', 'Must be between 0 and 99.'],
        [{ discount_percentage: '5.5' }, 'discount_percentage', 'Must be between 0 and 99.'],
        [{ discount_percentage: 5.5 }, 'discount_percentage', 'Must be between 0 and 99.'],
        [{ discount_percentage: '-5' }, 'discount_percentage', 'Must be between 0 and 99.'],
        [{ discount_percentage: 'ten' }, 'discount_percentage', 'Must be between 0 and 99.'],
        [{ client_name: undefined }, 'client_name', 'Required'],
        [{ client_name: ' ' }, 'client_name', 'Required'],
        [{ valid_from: undefined }, 'valid_from', 'Required'],
        [{ valid_from: '' }, 'valid_from', 'Required'],
        [{ valid_until: undefined }, 'valid_until', 'Required'],
        [{ valid_until: null }, 'valid_until', 'Required'],
        [{ valid_from: '2025-02-30 00:00:00' }, 'valid_from', 'Date input not valid.'],
        [{ valid_until: '31/12/2030' }, 'valid_until', 'Date input not valid.'],
        [{ valid_from: '2031-01-01 00:00:00' }, 'valid_until', 'Invalid date range.'],
        [{ valid_from: '2030-12-31 23:59:59', valid_until: '2030-12-31 23:59:58' }, 'valid_until', 'Invalid date range.'],
      ];
      for (const [change, field, message] of cases) {
        const body: Record<string, unknown> = { ...FORM, ...change };
        for (const key of Object.keys(change)) if (change[key] === undefined) delete body[key];
        const res = await add(body);
        assert.equal(res.statusCode, 400, JSON.stringify(change));
        assert.equal(res.body.message, message, JSON.stringify(change));
        assert.deepEqual(res.body.errors, { [field]: message }, JSON.stringify(change));
      }
      const empty = await add({});
      assert.deepEqual(empty.body.errors, { client_name: 'Required', discount_percentage: 'Required', valid_from: 'Required', valid_until: 'Required' });
      assert.equal(await codeCount(), before);
    });

    test('the client must be in the registry', async () => {
      const before = await codeCount();
      const res = await add({ ...FORM, client_name: 'Nobody Inc' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.body.message, "Client 'Nobody Inc' does not exist. Add the client first, or pick one from the list.");
      assert.deepEqual(Object.keys(res.body.errors ?? {}), ['client_name']);
      assert.equal((await add({ ...FORM, client_name: 'acme mining' })).statusCode, 400, 'the exact name, as the picker gives it');
      assert.equal(await codeCount(), before);
    });

    test('valid values at the edges: 0 and 99, digits as text, one-second validity, status given on add', async () => {
      const zero = await add({ ...FORM, discount_percentage: 0 });
      assert.equal(zero.body.discount_percentage, 0);
      const digits = await add({ ...FORM, discount_percentage: ' 99 ', valid_from: '2026-06-01 12:30:00', valid_until: '2026-06-01 12:30:00', description: '  ' });
      assert.equal(digits.statusCode, 200, digits.body.message);
      assert.equal(digits.body.discount_percentage, 99);
      assert.equal(digits.body.description, null, 'a blank description is none');
      assert.equal(digits.body.valid_until, '2026-06-01 12:30:00');
      const inactive = await add({ ...FORM, status: false });
      assert.equal(inactive.body.status, false);
      const nullStatus = await add({ ...FORM, status: null });
      assert.equal(nullStatus.body.status, true, 'null status is the default: active');
    });

    test('update changes every field but the code, can reassign the client and toggle the status, and logs before and after', async () => {
      const created = (await add({ ...FORM, description: 'to edit' })).body;
      const res = await update(created.id, {
        client_name: 'Beta Pool',
        description: 'edited',
        discount_percentage: '40',
        valid_from: '2025-03-01 00:00:00',
        valid_until: '2025-03-31 23: 59: 59',
        status: false,
      }, 'admin2');
      assert.equal(res.statusCode, 200, res.body.message);
      assert.deepEqual(res.body, {
        ...created,
        client_name: 'Beta Pool',
        description: 'edited',
        discount_percentage: 40,
        valid_from: '2025-03-01 00:00:00',
        valid_until: '2025-03-31 23:59:59',
        status: false,
      });
      const entries = await logs(created.code);
      assert.deepEqual(entries.map((e) => [e.action, e.username]), [['Create', 'root'], ['Update', 'Rita.Admin']]);
      assert.deepEqual(entries[1]!.previous_values, {
        code: created.code, client_name: 'Acme Mining', description: 'to edit', discount_percentage: 25, valid_from: '2025-01-01 00:00:00', valid_until: '2030-12-31 23:59:59', status: true,
      });
      assert.deepEqual(entries[1]!.updated_values, {
        code: created.code, client_name: 'Beta Pool', description: 'edited', discount_percentage: 40, valid_from: '2025-03-01 00:00:00', valid_until: '2025-03-31 23:59:59', status: false,
      });

      // Without status, the status stays; saving unchanged logs nothing.
      const same = await update(created.id, { client_name: 'Beta Pool', description: 'edited', discount_percentage: 40, valid_from: '2025-03-01 00:00:00', valid_until: '2025-03-31 23:59:59' });
      assert.equal(same.body.status, false);
      assert.equal((await logs(created.code)).length, 2);
      const reactivated = await update(created.id, { ...FORM, client_name: 'Beta Pool', status: true });
      assert.equal(reactivated.body.status, true);

      const invalid = await update(created.id, { ...FORM, discount_percentage: 120 });
      assert.equal(invalid.statusCode, 400);
      assert.equal(invalid.body.message, 'Must be between 0 and 99.');
      const missing = await update(987654, FORM);
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.body.message, 'Discount 987654 does not exist.');
      assert.equal((await update(created.id, { ...FORM, client_name: 'Nobody Inc' })).statusCode, 400);
    });

    test('delete removes the code and logs what it was; a second delete is 404', async () => {
      const created = (await add({ ...FORM, description: 'to delete' })).body;
      const res = await remove(created.id);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.body, { status: 'success', message: `Client code ${created.code} deleted.` });
      assert.equal((await list({ client_code: created.code })).body.total_records, 0);
      const entries = await logs(created.code);
      assert.deepEqual(entries.map((e) => e.action), ['Create', 'Delete']);
      assert.equal(entries[1]!.previous_values?.description, 'to delete');
      assert.equal(entries[1]!.updated_values, null);
      const again = await remove(created.id);
      assert.equal(again.statusCode, 404);
      assert.equal(again.body.message, `Discount ${created.id} does not exist.`);
    });

    describe('list', () => {
      const fixtureIds: number[] = [];
      before(async () => {
        // 12 codes made on known days of 2020, alternately active, for the date and status filters.
        for (let i = 0; i < 12; i++) {
          const row = (await add({ ...FORM, client_name: 'Beta Pool', description: `listed ${i}`, status: i % 2 === 0 })).body;
          await db.query('UPDATE discount_codes SET created_at = $2 WHERE id = $1', [row.id, new Date(Date.UTC(2020, 0, 1 + i, 12))]);
          fixtureIds.push(row.id);
        }
      });
      const YEAR_2020 = { from_date: '2020-01-01 00:00:00', to_date: '2020-12-31 23:59:59' };

      test('newest first, with every column, paged, totals over all pages', async () => {
        const all = await list({ ...YEAR_2020, limit: '100' });
        assert.equal(all.statusCode, 200, all.body.message);
        assert.deepEqual(all.body.result.map((r) => r.id), [...fixtureIds].reverse());
        assert.equal(all.body.result[0]!.created_at, '2020-01-12T12:00:00.000Z');
        assert.deepEqual(Object.keys(all.body.result[0]!).sort(), ['client_name', 'code', 'created_at', 'description', 'discount_percentage', 'id', 'status', 'valid_from', 'valid_until']);
        const page2 = await list({ ...YEAR_2020, page: '2', limit: '10' });
        assert.deepEqual(page2.body.result.map((r) => r.id), [fixtureIds[1], fixtureIds[0]]);
        assert.equal(page2.body.total_pages, 2);
        assert.equal(page2.body.total_records, 12);
        assert.deepEqual((await list({ ...YEAR_2020, page: '3' })).body, { result: [], total_pages: 2, total_records: 12 });
        assert.equal((await list({})).body.result.length, 10, 'limit 10 by default');
      });

      test('from_date and to_date bound the creation time, inclusive, in either spelling of the end', async () => {
        for (const to of ['2020-01-05 23:59:59', '2020-01-05 23: 59: 59']) {
          const res = await list({ from_date: '2020-01-03 00:00:00', to_date: to });
          assert.deepEqual(res.body.result.map((r) => r.id), [fixtureIds[4], fixtureIds[3], fixtureIds[2]], to);
        }
        assert.equal((await list({ from_date: '2020-01-12 12:00:00', to_date: '2020-12-31 23:59:59' })).body.total_records, 1);
        assert.equal((await list({ from_date: '2020-01-12 12:00:01', to_date: '2020-12-31 23:59:59' })).body.total_records, 0);
        const inverted = await list({ from_date: '2020-02-01 00:00:00', to_date: '2020-01-01 00:00:00' });
        assert.equal(inverted.statusCode, 400);
        assert.equal(inverted.body.message, 'to_date cannot be earlier than from_date.');
        assert.equal((await list({ from_date: 'yesterday' })).statusCode, 400);
      });

      test('status: true lists Active codes, false Inactive, absent All', async () => {
        const active = await list({ ...YEAR_2020, status: 'true', limit: '100' });
        assert.deepEqual(active.body.result.map((r) => r.id), fixtureIds.filter((_, i) => i % 2 === 0).reverse());
        const inactive = await list({ ...YEAR_2020, status: 'false', limit: '100' });
        assert.deepEqual(inactive.body.result.map((r) => r.id), fixtureIds.filter((_, i) => i % 2 === 1).reverse());
        assert.ok(inactive.body.result.every((r) => !r.status));
        assert.equal((await list({ status: 'Active' })).statusCode, 400);
      });

      test('client_code matches codes starting with the text, ignoring case', async () => {
        const row = (await list({ ...YEAR_2020 })).body.result[0]!;
        assert.deepEqual((await list({ client_code: row.code })).body.result.map((r) => r.id), [row.id]);
        assert.deepEqual((await list({ client_code: ` ${row.code.toLowerCase()} ` })).body.result.map((r) => r.id), [row.id]);
        const prefix = await list({ client_code: row.code.slice(0, 6), limit: '100' });
        assert.ok(prefix.body.result.some((r) => r.id === row.id));
        assert.ok(prefix.body.result.every((r) => r.code.startsWith(row.code.slice(0, 6))));
      });

      test('SQL and LIKE metacharacters in client_code find nothing, and break nothing', async () => {
        const queries: Array<Record<string, string>> = [
          { client_code: "' OR '1'='1" },
          { client_code: "x'; DROP TABLE discount_codes; --" },
          { client_code: '%' },
          { client_code: '_' },
          { client_code: '\\' },
        ];
        for (const query of queries) {
          const res = await list(query);
          assert.equal(res.statusCode, 200, JSON.stringify(query));
          assert.deepEqual(res.body, { result: [], total_pages: 0, total_records: 0 }, JSON.stringify(query));
        }
        assert.ok((await codeCount()) > 12);
      });

      test('unknown parameters and bad paging are 400s', async () => {
        const bad: Array<Record<string, string>> = [{ limit: '25' }, { page: '0' }, { code: 'X' }, { client_name: 'Acme' }];
        for (const query of bad) assert.equal((await list(query)).statusCode, 400, JSON.stringify(query));
      });
    });

    test('viewers read but every write is 403, strangers get 401; nothing changes', async () => {
      const target = (await add({ ...FORM, description: 'guarded' })).body;
      const snapshot = async () => (await db.query('SELECT * FROM discount_codes ORDER BY id')).rows;
      const logCount = async () => (await db.query<{ n: number }>('SELECT count(*) AS n FROM discount_logs')).rows[0]!.n;
      const [rowsBefore, logsBefore] = [await snapshot(), await logCount()];
      for (const [as, status] of [['viewer', 403], ['nobody', 401]] as const) {
        assert.equal((await add(FORM, as)).statusCode, status);
        assert.equal((await update(target.id, { ...FORM, discount_percentage: 99 }, as)).statusCode, status);
        assert.equal((await remove(target.id, as)).statusCode, status);
      }
      assert.equal((await list({}, 'nobody')).statusCode, 401);
      assert.equal((await list({}, 'viewer')).statusCode, 200);
      assert.deepEqual(await snapshot(), rowsBefore);
      assert.equal(await logCount(), logsBefore);
    });

    test('a change and its log entry commit together: when the log insert fails, the change rolls back', async () => {
      const target = (await add({ ...FORM, description: 'atomic' })).body;
      const rowsBefore = (await db.query('SELECT * FROM discount_codes ORDER BY id')).rows;
      const restore = await breakInserts(db, 'discount_logs');
      try {
        assert.equal((await add(FORM)).statusCode, 500);
        assert.equal((await update(target.id, { ...FORM, discount_percentage: 1 })).statusCode, 500);
        assert.equal((await remove(target.id)).statusCode, 500);
        assert.deepEqual((await db.query('SELECT * FROM discount_codes ORDER BY id')).rows, rowsBefore);
      } finally {
        await restore();
      }
      assert.equal((await remove(target.id)).statusCode, 200);
    });
  });
}
