import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditLogVerifyResponse } from '../../src/modules/audit-logs/audit-logs.schemas.ts';
import { startStaffTestApp, type StaffTestApp } from '../helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';
import { routeTable } from './helpers/route-table.ts';

/**
 * The audit trail cannot be altered through the API, and what is altered
 * behind its back is found: no route writes audit rows (every method on
 * every audit path is 404 or 405 and leaves the rows as they were), and
 * GET /rest-api/audits/verify, for administrators, walks the hash chain and
 * names the first row changed or the place rows were removed, after the
 * database itself was tampered with. Two portal instances sharing the
 * database append one chain that verifies.
 */

const AUDIT_PATHS = [
  '/rest-api/audits',
  '/rest-api/audits/',
  '/rest-api/audits/list',
  '/rest-api/audits/verify',
  '/rest-api/audits/1',
  '/rest-api/audits/list/1',
  '/rest-api/audits/update/1',
  '/rest-api/audits/delete/1',
  '/rest-api/audits/add',
  '/rest-api/audit-logs',
  '/rest-api/audit_logs/1',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const READABLE = new Set(['GET /rest-api/audits/list', 'HEAD /rest-api/audits/list', 'GET /rest-api/audits/verify', 'HEAD /rest-api/audits/verify']);

/** Every audit row as it is: its hashes (in the row or beside it) and its content. */
async function auditSnapshot(db: TestDatabase, upToId: number): Promise<string> {
  const { rows } = await db.query<{ fingerprint: string | null }>(
    `SELECT md5(string_agg(a::text || coalesce(h::text, ''), '|' ORDER BY a.id)) AS fingerprint
       FROM audit_logs a LEFT JOIN audit_log_hashes h ON h.id = a.id WHERE a.id <= $1`,
    [upToId],
  );
  return rows[0]?.fingerprint ?? '';
}

for (const engine of testDatabases()) {
  describe(`the audit trail: read-only through the API, tampering found by its hash chain (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, undefined, { auditFlushIntervalMs: 3_600_000 });
      // Some traffic of every kind for the trail: public, staff, refused.
      for (let i = 0; i < 30; i++) {
        await t.app.inject({ method: 'POST', url: '/rest-api/parse-tx', payload: { tx_hexes: [`0${i}`] } });
        await t.call('GET', '/rest-api/audits/list', { as: i % 2 ? 'viewer' : 'admin' });
        await t.app.inject({ method: 'GET', url: '/rest-api/client/view' });
      }
      await t.audit.flush();
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    const verify = async (as: 'admin' | 'viewer' | 'nobody' = 'admin') => {
      await t.audit.flush();
      return t.call<AuditLogVerifyResponse>('GET', '/rest-api/audits/verify', { as });
    };
    const ids = async () => (await db.query<{ id: number }>('SELECT id FROM audit_logs ORDER BY id')).rows.map((r) => r.id);

    test('an administrator verifies the untouched trail; a viewer and a stranger may not', async () => {
      const res = await verify();
      assert.equal(res.statusCode, 200, JSON.stringify(res.body));
      const count = (await ids()).length;
      assert.ok(count >= 90);
      assert.equal(res.body.ok, true, JSON.stringify(res.body));
      assert.equal(res.body.status, 'success');
      // Every row written before this request was verified (its own row is written after it answers).
      assert.equal(res.body.verified, count);
      assert.match(res.body.head_hash, /^[0-9a-f]{64}$/);
      assert.equal((await verify('viewer')).statusCode, 403);
      assert.equal((await verify('nobody')).statusCode, 401);
    });

    test('no route writes audit rows: every method on every audit path is 404 or 405, and the rows stay as they were', async () => {
      const auditRoutes = routeTable(t.app).filter((r) => /audit/i.test(r.url));
      assert.ok(auditRoutes.length >= 2);
      for (const route of auditRoutes) assert.ok(['GET', 'HEAD'].includes(route.method), `${route.method} ${route.url}: a route that could change the audit trail`);

      await t.audit.flush();
      const upTo = Math.max(...(await ids()));
      const before = await auditSnapshot(db, upTo);
      for (const path of AUDIT_PATHS) {
        for (const method of METHODS) {
          for (const as of ['admin', 'nobody'] as const) {
            const res = await t.app.inject({
              method,
              url: path,
              headers: { ...(as === 'admin' ? { authorization: `Bearer ${t.tokens.admin}` } : {}), ...(['POST', 'PUT', 'PATCH'].includes(method) ? { 'content-type': 'application/json' } : {}) },
              ...(['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) ? { payload: JSON.stringify({ id: 1, request_payload: 'rewritten', is_success: true }) } : {}),
            });
            const what = `${method} ${path} as ${as}`;
            if (READABLE.has(`${method} ${path}`)) assert.equal(res.statusCode, as === 'admin' ? 200 : 401, what);
            else assert.ok([404, 405].includes(res.statusCode), `${what}: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`);
          }
        }
      }
      await t.audit.flush();
      assert.equal(await auditSnapshot(db, upTo), before, 'the rows written before were not changed');
      assert.equal((await verify()).body.ok, true);
    });

    test('an anchor noted from one verification holds in the next; a half anchor or a malformed hash is a 400', async () => {
      const first = await verify();
      assert.equal(first.body.ok, true);
      await t.call('GET', '/rest-api/staff/me');
      await t.audit.flush();
      const anchored = await t.call<AuditLogVerifyResponse>('GET', '/rest-api/audits/verify', { query: { anchor_id: String(first.body.head_id), anchor_hash: first.body.head_hash } });
      assert.equal(anchored.statusCode, 200);
      assert.equal(anchored.body.ok, true, JSON.stringify(anchored.body));
      assert.ok(anchored.body.head_id! > first.body.head_id!);
      const wrong = await t.call<AuditLogVerifyResponse>('GET', '/rest-api/audits/verify', { query: { anchor_id: String(first.body.head_id), anchor_hash: 'ab'.repeat(32) } });
      assert.deepEqual([wrong.body.ok, wrong.body.reason, wrong.body.first_broken_id], [false, 'rewritten', first.body.head_id]);
      const halves: Array<Record<string, string>> = [{ anchor_id: '1' }, { anchor_hash: first.body.head_hash }, { anchor_id: '1', anchor_hash: 'xyz' }, { anchor_id: '0', anchor_hash: first.body.head_hash }];
      for (const query of halves) {
        const res = await t.call<{ status: string; message: string }>('GET', '/rest-api/audits/verify', { query });
        assert.equal(res.statusCode, 400, JSON.stringify(query));
        assert.equal(res.body.status, 'error');
      }
    });

    test('a row changed in the database is found at its id, and verifies again once restored', async () => {
      const all = await ids();
      const target = all[Math.floor(all.length / 2)]!;
      const { rows: [original] } = await db.query<{ request_payload: string | null }>('SELECT request_payload FROM audit_logs WHERE id = $1', [target]);
      await db.query(`UPDATE audit_logs SET request_payload = '{"tx_hexes":["forged"]}' WHERE id = $1`, [target]);
      const res = await verify();
      assert.equal(res.statusCode, 200);
      assert.deepEqual(
        { ok: res.body.ok, reason: res.body.reason, first_broken_id: res.body.first_broken_id, last_intact_id: res.body.last_intact_id, verified: res.body.verified },
        { ok: false, reason: 'changed', first_broken_id: target, last_intact_id: all[all.indexOf(target) - 1], verified: all.indexOf(target) },
      );
      assert.match(res.body.message ?? '', new RegExp(`Row ${target}`));
      await db.query('UPDATE audit_logs SET request_payload = $2 WHERE id = $1', [target, original!.request_payload]);
      assert.equal((await verify()).body.ok, true, 'the original content matches its hash again');
    });

    test('a row deleted from the database is found where it was; rows written afterwards do not hide it', async () => {
      const all = await ids();
      const index = Math.floor(all.length / 3);
      await db.query('DELETE FROM audit_logs WHERE id = $1', [all[index]]);
      for (const as of ['admin', 'admin', 'viewer'] as const) await t.call('GET', '/rest-api/staff/me', { as });
      const res = await verify();
      assert.deepEqual(
        { ok: res.body.ok, reason: res.body.reason, first_broken_id: res.body.first_broken_id, last_intact_id: res.body.last_intact_id },
        { ok: false, reason: 'removed', first_broken_id: all[index + 1], last_intact_id: all[index - 1] },
      );
    });

    test('the newest rows deleted are found against the chain head', async () => {
      // A trail of its own: the one above is already broken.
      const fresh = await engine.open();
      const app = await startStaffTestApp(fresh, undefined, { auditFlushIntervalMs: 3_600_000 });
      try {
        for (let i = 0; i < 5; i++) await app.call('GET', '/rest-api/staff/me');
        await app.audit.flush();
        const { rows } = await fresh.query<{ id: number }>('SELECT id FROM audit_logs ORDER BY id');
        await fresh.query('DELETE FROM audit_logs WHERE id >= $1', [rows[3]!.id]);
        const res = await app.call<AuditLogVerifyResponse>('GET', '/rest-api/audits/verify');
        assert.deepEqual(
          { ok: res.body.ok, reason: res.body.reason, first_broken_id: res.body.first_broken_id, last_intact_id: res.body.last_intact_id },
          { ok: false, reason: 'removed', first_broken_id: rows[4]!.id, last_intact_id: rows[2]!.id },
        );
      } finally {
        await app.close();
        await fresh.close();
      }
    });

    test('two portal instances on one database append one chain while both are busy', async () => {
      const fresh = await engine.open();
      const peer = await fresh.openPeer();
      const a = await startStaffTestApp(fresh, undefined, { auditFlushIntervalMs: 5 });
      const b = await startStaffTestApp(peer, undefined, { auditFlushIntervalMs: 5 });
      try {
        await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            i % 2 ? a.app.inject({ method: 'POST', url: '/rest-api/parse-tx', remoteAddress: `10.1.0.${i % 250}`, payload: { tx_hexes: ['zz'] } }) : b.call('GET', '/rest-api/staff/me'),
          ),
        );
        await Promise.all([a.audit.flush(), b.audit.flush()]);
        const rows = (await fresh.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_logs')).rows[0]!.n;
        assert.ok(rows >= 200, `${rows} rows`);
        const res = await a.call<AuditLogVerifyResponse>('GET', '/rest-api/audits/verify');
        assert.equal(res.body.ok, true, JSON.stringify(res.body));
        assert.ok(res.body.verified >= 200);
      } finally {
        await a.close();
        await b.close();
        await peer.close();
        await fresh.close();
      }
    });
  });
}
