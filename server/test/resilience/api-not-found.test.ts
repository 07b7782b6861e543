import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestNode, type TestNode } from '../helpers/regtest.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDatabases, type TestDatabase } from '../helpers/test-db.ts';

/**
 * With the web app served, a GET that no route takes is a deep link into the
 * app and gets index.html. A path under /rest-api, however it is spelt, is
 * not: it is an API call to an endpoint that does not exist, answered 404 in
 * the API's error shape (and audited as the failure it is), never a 200 page
 * that the audit trail would record as a success.
 */

let node: TestNode;
before(async () => {
  node = await startTestNode();
});
after(async () => {
  await node?.stop();
});

for (const engine of testDatabases()) {
  describe(`unknown API paths with the web app served (${engine.name})`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let dist: string;

    before(async () => {
      dist = await mkdtemp(path.join(tmpdir(), 'portal-dist-'));
      await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>portal</title>');
      db = await engine.open();
      t = await startTestApp(node, db, { webDistDir: dist, auditFlushIntervalMs: 3_600_000 });
    });

    after(async () => {
      await t?.close();
      await db?.close();
      await rm(dist, { recursive: true, force: true });
    });

    test('a deep link into the web app gets the page', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/some/deep/link' });
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /<title>portal<\/title>/);
    });

    for (const url of ['/%72est-api/no-such-endpoint', '/REST-API/no-such-endpoint', '/Rest-Api', '//rest-api//no-such-endpoint', '/x/../rest-api/no-such-endpoint']) {
      test(`GET ${url} is a 404 in the API's shape, audited as a failure`, async () => {
        await t.audit.flush();
        const last = (await db.query<{ id: number }>('SELECT coalesce(max(id), 0)::int AS id FROM audit_logs')).rows[0]!.id;
        const res = await t.app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 404, res.body);
        assert.match(String(res.headers['content-type']), /application\/json/);
        assert.equal(res.json<{ status: string }>().status, 'error');
        await t.audit.flush();
        const { rows } = await db.query<{ is_success: boolean }>('SELECT is_success FROM audit_logs WHERE id > $1', [last]);
        assert.deepEqual(rows, [{ is_success: false }]);
      });
    }
  });
}
