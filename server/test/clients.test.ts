import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clientFilters } from '../src/modules/clients/clients.repository.ts';
import type { ClientListResponse, ClientNamesResponse, ClientRow } from '../src/modules/clients/clients.schemas.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { breakInserts, startStaffTestApp, type StaffTestApp, type Who } from './helpers/staff-app.ts';

/**
 * Client Management's API (docs/behaviour.md#client-management):
 * /rest-api/client/view, /add, /update/{id}, /delete/{id}, and the client
 * log each change writes in its own transaction.
 */

interface ErrorBody {
  status: 'error';
  message: string;
  errors?: Record<string, string>;
}

interface ClientLog {
  username: string;
  client_name: string | null;
  action: string;
  previous_values: Record<string, unknown> | null;
  updated_values: Record<string, unknown> | null;
}

const FULL = {
  name: 'Acme Mining',
  email: 'ops@acme.example',
  phone_number: '5550100',
  alternate_phone: '5550101',
  address: '1 Hash Street, Block Town',
  organization_name: 'Acme Holdings',
  organization_email: 'legal@acme.example',
  description: 'Our first client',
};

for (const engine of testDatabases()) {
  describe(`client management API (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db);
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    const add = (body: unknown, as: Who = 'admin') => t.call<ClientRow & ErrorBody>('POST', '/rest-api/client/add', { body, as });
    const update = (id: number, body: unknown, as: Who = 'admin') => t.call<ClientRow & ErrorBody>('POST', `/rest-api/client/update/${id}`, { body, as });
    const remove = (id: number, as: Who = 'admin') => t.call<ErrorBody & { status: string }>('DELETE', `/rest-api/client/delete/${id}`, { as });
    const list = (query: Record<string, string>, as: Who = 'viewer') => t.call<ClientListResponse & ErrorBody>('GET', '/rest-api/client/view', { query, as });
    const logs = async (name: string) =>
      (await db.query<ClientLog>('SELECT username, client_name, action, previous_values, updated_values FROM client_logs WHERE client_name = $1 ORDER BY id', [name])).rows;
    const clientCount = async () => (await db.query<{ n: number }>('SELECT count(*) AS n FROM clients')).rows[0]!.n;
    const addCode = async (clientId: number, code: string) =>
      (await db.query<{ id: number }>(
        "INSERT INTO discount_codes (code, client_id, discount_percentage, valid_from, valid_until) VALUES ($1, $2, 10, now(), now() + interval '1 day') RETURNING id",
        [code, clientId],
      )).rows[0]!.id;

    test('an administrator adds a client with every field; the row comes back deletable and the log records who and what', async () => {
      const res = await add(FULL);
      assert.equal(res.statusCode, 200, res.body.message);
      assert.deepEqual(res.body, { id: res.body.id, ...FULL, is_deletable: true });
      assert.deepEqual(await logs('Acme Mining'), [{ username: 'root', client_name: 'Acme Mining', action: 'Create', previous_values: null, updated_values: FULL }]);
    });

    test('only the name is required: blank optional fields are stored as none, and text is trimmed', async () => {
      const res = await add({ name: '  Lone Miner  ', email: '', phone_number: '   ', description: null });
      assert.equal(res.statusCode, 200, res.body.message);
      assert.deepEqual(res.body, {
        id: res.body.id,
        name: 'Lone Miner',
        email: null,
        phone_number: null,
        alternate_phone: null,
        address: null,
        organization_name: null,
        organization_email: null,
        description: null,
        is_deletable: true,
      });
    });

    test('each invalid field answers the documented message, naming the field; nothing is written', async () => {
      const before = await clientCount();
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{}, 'name', 'Name is required'],
        [{ name: '   ' }, 'name', 'Name is required'],
        [{ name: null }, 'name', 'Name is required'],
        [{ name: 'X', email: 'not-an-address' }, 'email', 'Email is invalid'],
        [{ name: 'X', email: 'a@b' }, 'email', 'Email is invalid'],
        [{ name: 'X', email: 'a b@c.example' }, 'email', 'Email is invalid'],
        [{ name: 'X', organization_email: 'legal@' }, 'organization_email', 'Organization email is invalid'],
        [{ name: 'X', phone_number: '555-0100' }, 'phone_number', 'Phone number is invalid'],
        [{ name: 'X', phone_number: '+15550100' }, 'phone_number', 'Phone number is invalid'],
        [{ name: 'X', phone_number: '1'.repeat(21) }, 'phone_number', 'Phone number is invalid'],
        [{ name: 'X', alternate_phone: 'call me' }, 'alternate_phone', 'Alternate phone number is invalid'],
      ];
      for (const [body, field, message] of cases) {
        const res = await add(body);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(res.body.message, message, JSON.stringify(body));
        assert.deepEqual(res.body.errors, { [field]: message }, JSON.stringify(body));
      }
      const several = await add({ email: 'x', phone_number: 'y', alternate_phone: 'z', organization_email: 'w' });
      assert.equal(several.statusCode, 400);
      assert.equal(several.body.message, 'Name is required');
      assert.deepEqual(several.body.errors, {
        name: 'Name is required',
        email: 'Email is invalid',
        phone_number: 'Phone number is invalid',
        alternate_phone: 'Alternate phone number is invalid',
        organization_email: 'Organization email is invalid',
      });
      assert.equal(await clientCount(), before);
    });

    test('unknown fields are refused, not ignored: no id, no is_deletable, no timestamps from the caller', async () => {
      const before = await clientCount();
      for (const extra of [{ id: 999 }, { is_deletable: false }, { created_at: '2020-01-01' }, { foo: 'bar' }]) {
        const res = await add({ name: `Sneaky ${Object.keys(extra)[0]}`, ...extra });
        assert.equal(res.statusCode, 400, JSON.stringify(extra));
        assert.match(res.body.message, new RegExp(`Unknown field '${Object.keys(extra)[0]}'`));
      }
      assert.equal((await add({ name: { first: 'A' } })).statusCode, 400, 'an object is not a name');
      assert.equal((await add([{ name: 'A' }])).statusCode, 400, 'nor is an array of clients');
      assert.equal(await clientCount(), before);
    });

    test('a duplicate name is a 409 that says so, on add and on rename', async () => {
      const dup = await add({ name: 'Acme Mining' });
      assert.equal(dup.statusCode, 409);
      assert.equal(dup.body.message, "A client named 'Acme Mining' already exists. Client names must be unique.");
      const other = await add({ name: 'Beta Pool' });
      const rename = await update(other.body.id, { name: ' Acme Mining ' });
      assert.equal(rename.statusCode, 409);
      assert.match(rename.body.message, /already exists/);
      assert.equal((await logs('Acme Mining')).length, 1, 'no log entry for refused changes');
    });

    test('update replaces every field and logs the previous and updated values; saving unchanged logs nothing', async () => {
      const created = await add({ name: 'Gamma Hash', email: 'g@gamma.example', phone_number: '123' });
      const id = created.body.id;
      const res = await update(id, { name: 'Gamma Hashing', email: 'ops@gamma.example', address: 'Gamma House' });
      assert.equal(res.statusCode, 200, res.body.message);
      assert.deepEqual(res.body, {
        id,
        name: 'Gamma Hashing',
        email: 'ops@gamma.example',
        phone_number: null,
        alternate_phone: null,
        address: 'Gamma House',
        organization_name: null,
        organization_email: null,
        description: null,
        is_deletable: true,
      });
      const entries = await logs('Gamma Hashing');
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.action, 'Update');
      assert.equal(entries[0]!.username, 'root');
      assert.deepEqual(entries[0]!.previous_values, { ...nulls(), name: 'Gamma Hash', email: 'g@gamma.example', phone_number: '123' });
      assert.deepEqual(entries[0]!.updated_values, { ...nulls(), name: 'Gamma Hashing', email: 'ops@gamma.example', address: 'Gamma House' });

      const again = await update(id, { name: 'Gamma Hashing', email: ' ops@gamma.example ', address: 'Gamma House' }, 'admin2');
      assert.equal(again.statusCode, 200);
      assert.equal((await logs('Gamma Hashing')).length, 1);

      assert.equal((await update(id, { name: 'Gamma Hashing', email: 'bad' })).body.message, 'Email is invalid');
      const missing = await update(987654, { name: 'Nobody' });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.body.message, 'Client 987654 does not exist.');
      assert.equal((await update(0, { name: 'Zero' })).statusCode, 400, 'ids start at 1');
      assert.equal((await t.call('POST', '/rest-api/client/update/abc', { body: { name: 'x' } })).statusCode, 400);
    });

    test('is_deletable is false while a discount code is issued to the client (whatever the submissions), and delete is refused with 409', async () => {
      const client = (await add({ name: 'Delta Blocks' })).body;
      const codeId = await addCode(client.id, `DELTA-${engine.name}`);
      const second = await addCode(client.id, `DELTA2-${engine.name}`);
      // Submissions that used the code.
      await db.query(
        `INSERT INTO tx_submissions (txid, wtxid, tx_hex, client_code, discount_code_id, fee, fee_rate, functional_rate, market_rate, threshold_rate, multiplier)
         VALUES ($1, $1, '00', $2, $3, 1000, 5, 5, 1, 2, 5)`,
        ['ab'.repeat(32), `DELTA-${engine.name}`, codeId],
      );
      await db.query("INSERT INTO failed_txs (txid, tx_hex, client_code, status, errors) VALUES ($1, '00', $2, 'Failed', ARRAY['x'])", ['cd'.repeat(32), `DELTA2-${engine.name}`]);

      const row = async () => (await list({ client_name: 'Delta Blocks' })).body.result[0]!;
      assert.equal((await row()).is_deletable, false);
      const refused = await remove(client.id);
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.body.message, "Client 'Delta Blocks' cannot be deleted while 2 discount codes are issued to it. Delete its discount codes first.");
      assert.ok(await row(), 'still there');

      await db.query('DELETE FROM discount_codes WHERE id = $1', [second]);
      const stillRefused = await remove(client.id);
      assert.equal(stillRefused.statusCode, 409);
      assert.match(stillRefused.body.message, /while 1 discount code is issued to it/);

      // Deleting the last code keeps the submission (its client_code text stays, discount_code_id becomes null).
      await db.query('DELETE FROM discount_codes WHERE id = $1', [codeId]);
      assert.equal((await row()).is_deletable, true);
      const deleted = await remove(client.id);
      assert.equal(deleted.statusCode, 200, deleted.body.message);
      assert.deepEqual(deleted.body, { status: 'success', message: "Client 'Delta Blocks' deleted." });
      assert.equal((await list({ client_name: 'Delta Blocks' })).body.total_records, 0);
      const submission = await db.query<{ client_code: string; discount_code_id: number | null }>('SELECT client_code, discount_code_id FROM tx_submissions WHERE txid = $1', ['ab'.repeat(32)]);
      assert.deepEqual(submission.rows, [{ client_code: `DELTA-${engine.name}`, discount_code_id: null }]);

      const entries = await logs('Delta Blocks');
      assert.deepEqual(entries.map((e) => e.action), ['Create', 'Delete']);
      assert.deepEqual(entries[1]!.previous_values, { ...nulls(), name: 'Delta Blocks' });
      assert.equal(entries[1]!.updated_values, null);

      const gone = await remove(client.id);
      assert.equal(gone.statusCode, 404);
      assert.equal(gone.body.message, `Client ${client.id} does not exist.`);
    });

    test('list: newest first, page and limit, totals over all pages, bounds refused', async () => {
      for (let i = 0; i < 23; i++) await add({ name: `Page Client ${String(i).padStart(2, '0')}`, organization_name: 'Paging Org' });
      const all = await list({ organization_name: 'Paging Org', limit: '100' });
      assert.equal(all.body.total_records, 23);
      assert.deepEqual(all.body.result.map((r) => r.name), Array.from({ length: 23 }, (_, i) => `Page Client ${String(22 - i).padStart(2, '0')}`));
      const page3 = await list({ organization_name: 'Paging Org', page: '3', limit: '10' });
      assert.deepEqual(page3.body.result.map((r) => r.name), all.body.result.slice(20).map((r) => r.name));
      assert.equal(page3.body.total_pages, 3);
      const defaults = await list({ organization_name: 'Paging Org' });
      assert.equal(defaults.body.result.length, 10, 'limit 10 by default');
      assert.deepEqual(defaults.body.result.map((r) => r.id), all.body.result.slice(0, 10).map((r) => r.id), 'page 1 by default');
      assert.deepEqual((await list({ organization_name: 'Paging Org', page: '4' })).body, { result: [], total_pages: 3, total_records: 23 });
      const bad: Array<Record<string, string>> = [{ limit: '15' }, { limit: '0' }, { page: '0' }, { page: '-1' }, { page: 'x' }, { sort: 'name' }];
      for (const query of bad) {
        const res = await list(query);
        assert.equal(res.statusCode, 400, JSON.stringify(query));
      }
      assert.match((await list({ sort: 'name' })).body.message, /Unknown field 'sort'/);
    });

    test('filters: case-insensitive prefixes of name, email and organization, combined', async () => {
      await add({ name: 'Omega Pool', email: 'Team@Omega.example', organization_name: 'Omega Group' });
      await add({ name: 'omega two', email: 'two@omega.example', organization_name: 'Other Group' });
      await add({ name: 'Alpha Omega', email: 'alpha@example.com', organization_name: 'omega group' });
      const names = async (query: Record<string, string>) => (await list({ ...query, limit: '100' })).body.result.map((r) => r.name).sort();
      assert.deepEqual(await names({ client_name: 'OMEGA' }), ['Omega Pool', 'omega two']);
      assert.deepEqual(await names({ client_name: '  omega p ' }), ['Omega Pool']);
      assert.deepEqual(await names({ email: 'team@' }), ['Omega Pool']);
      assert.deepEqual(await names({ organization_name: 'OMEGA GROUP' }), ['Alpha Omega', 'Omega Pool']);
      assert.deepEqual(await names({ client_name: 'omega', organization_name: 'omega' }), ['Omega Pool']);
      assert.deepEqual(await names({ client_name: 'mega' }), [], 'a prefix, not a substring');
      assert.ok((await names({ client_name: ' ', email: '' })).length > 5, 'blank filters mean none');
    });

    test('LIKE wildcards and SQL in the filters are matched as text: empty results, not errors', async () => {
      await add({ name: '100% Hash_rate' });
      await add({ name: '100X HashXrate' });
      const one = await list({ client_name: '100%' });
      assert.deepEqual(one.body.result.map((r) => r.name), ['100% Hash_rate']);
      assert.deepEqual((await list({ client_name: '100% Hash_' })).body.result.map((r) => r.name), ['100% Hash_rate']);
      const queries: Array<Record<string, string>> = [
        { client_name: "' OR '1'='1" },
        { client_name: "x'; DROP TABLE clients; --" },
        { email: '%' },
        { email: '_' },
        { organization_name: '\\' },
        { organization_name: "') OR 1=1 --" },
      ];
      for (const query of queries) {
        const res = await list(query);
        assert.equal(res.statusCode, 200, JSON.stringify(query));
        assert.deepEqual(res.body, { result: [], total_pages: 0, total_records: 0 }, JSON.stringify(query));
      }
      assert.ok((await clientCount()) > 20, 'the table is still there');
    });

    test('each filter is served by its lower(...) text_pattern_ops index', async () => {
      const cases: Array<[Parameters<typeof clientFilters>[0], string]> = [
        [{ name: 'Acme' }, 'clients_name_lower_idx'],
        [{ email: 'ops@' }, 'clients_email_lower_idx'],
        [{ organizationName: '50%_Off' }, 'clients_organization_name_lower_idx'],
      ];
      for (const [query, index] of cases) {
        const { where, params } = clientFilters(query);
        // With sequential scans priced out, the plan shows whether the index can serve the filter at all.
        const plan = await db.transaction(async (tx) => {
          await tx.query('SET LOCAL enable_seqscan = off');
          const { rows } = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT c.id FROM clients c ${where}`, params);
          return rows.map((r) => r['QUERY PLAN']).join('\n');
        });
        assert.match(plan, new RegExp(`${index}[\\s\\S]*Index Cond: .*~>=~`), plan);
      }
    });

    test('?list_clients answers every name, sorted ignoring case, for the discount picker', async () => {
      const res = await t.call<ClientNamesResponse>('GET', '/rest-api/client/view?list_clients', { as: 'viewer' });
      assert.equal(res.statusCode, 200);
      const { rows } = await db.query<{ name: string }>('SELECT name FROM clients');
      const expected = rows.map((r) => r.name).sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : a < b ? -1 : 1));
      assert.deepEqual(res.body, { client_names: expected });
      assert.ok(expected.indexOf('Alpha Omega') < expected.indexOf('Omega Pool') && expected.indexOf('Omega Pool') < expected.indexOf('omega two'), 'case is ignored');
      assert.deepEqual((await t.call('GET', '/rest-api/client/view', { query: { list_clients: 'true' }, as: 'viewer' })).body, res.body);
    });

    test('viewers read but every write is 403, strangers get 401; nothing changes', async () => {
      const target = (await add({ name: 'Guarded Client' })).body;
      const snapshot = async () => (await db.query('SELECT * FROM clients ORDER BY id')).rows;
      const logCount = async () => (await db.query<{ n: number }>('SELECT count(*) AS n FROM client_logs')).rows[0]!.n;
      const [rowsBefore, logsBefore] = [await snapshot(), await logCount()];
      for (const [as, status] of [['viewer', 403], ['nobody', 401]] as const) {
        assert.equal((await add({ name: 'Intruder' }, as)).statusCode, status);
        assert.equal((await update(target.id, { name: 'Renamed' }, as)).statusCode, status);
        assert.equal((await remove(target.id, as)).statusCode, status);
        // Refused before the body is even read: a bad body still gets the 401/403.
        assert.equal((await add({ unknown: true }, as)).statusCode, status);
      }
      assert.equal((await add({ name: 'Intruder' }, 'viewer')).body.message, 'Administrator rights are required for this action.');
      assert.equal((await list({}, 'nobody')).statusCode, 401);
      assert.equal((await list({}, 'viewer')).statusCode, 200);
      assert.equal((await list({}, 'admin')).statusCode, 200);
      assert.deepEqual(await snapshot(), rowsBefore);
      assert.equal(await logCount(), logsBefore);
    });

    test('a change and its log entry commit together: when the log insert fails, the change rolls back', async () => {
      const target = (await add({ name: 'Atomic Client', email: 'a@atomic.example' })).body;
      const rowsBefore = (await db.query('SELECT * FROM clients ORDER BY id')).rows;
      const restore = await breakInserts(db, 'client_logs');
      try {
        const added = await add({ name: 'Never Written' });
        assert.equal(added.statusCode, 500);
        assert.equal(added.body.message, 'Something went wrong on the server.');
        assert.equal((await update(target.id, { name: 'Atomic Renamed' })).statusCode, 500);
        assert.equal((await remove(target.id)).statusCode, 500);
        assert.deepEqual((await db.query('SELECT * FROM clients ORDER BY id')).rows, rowsBefore);
      } finally {
        await restore();
      }
      assert.equal((await update(target.id, { name: 'Atomic Renamed' })).statusCode, 200, 'works again once the log can be written');
      assert.equal((await logs('Atomic Renamed')).length, 1);
    });
  });
}

function nulls(): Record<string, null> {
  return { email: null, phone_number: null, alternate_phone: null, address: null, organization_name: null, organization_email: null, description: null };
}
