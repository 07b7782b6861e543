import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';

/**
 * Request logs name the path, never the query string: a sign-in callback's
 * `?code=...&state=...`, a status lookup's `?tx_id=`, a staff search's text
 * and anything else a caller put after the `?` stay out of the log, which is
 * shipped and kept far more widely than the database. Each request line
 * still says the method, the host and the client's address. Read from the
 * log of a real app, listening, as the runtime configures it (a level, and
 * here a stream instead of standard output).
 */

interface LogLine {
  msg?: string;
  req?: { method?: string; url?: string; host?: string; remoteAddress?: string };
}

const SECRETS = {
  code: 'oauth-code-5e1f0c',
  state: 'oauth-state-9a7b2d',
  txId: 'c0ffee'.repeat(10) + 'beef',
  search: 'needle-4d2a',
  token: 'query-token-77e1',
};

for (const engine of testDatabases()) {
  describe(`request logs (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;
    let base: string;
    const output: string[] = [];

    before(async () => {
      db = await engine.open();
      const stream = new Writable({
        write(chunk: Buffer, _encoding, done) {
          output.push(chunk.toString('utf8'));
          done();
        },
      });
      t = await startStaffTestApp(db, undefined, { logger: { level: 'info', stream } });
      base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });

    after(async () => {
      await t?.close();
      await db?.close();
    });

    test('request lines carry the method, host, client address and path, and no query string', async () => {
      const requests: Array<[path: string, query: string, headers?: Record<string, string>]> = [
        // Refused before routing (the router cannot decode the path): logged on arrival, with no completion line.
        ['/rest-api/client/update/%zz', `?code=${SECRETS.code}`],
        ['/login/callback', `?code=${SECRETS.code}&state=${SECRETS.state}`],
        ['/rest-api/status-check', `?tx_id=${SECRETS.txId}`],
        ['/rest-api/audits/list', `?ip_or_endpoint=${SECRETS.search}`, { authorization: `Bearer ${t.tokens.viewer}` }],
        ['/%72est-api/getinfo', `?token=${SECRETS.token}`],
        ['/rest-api/no-such-endpoint', `?token=${SECRETS.token}#fragment`],
      ];
      output.length = 0;
      for (const [path, query, headers] of requests) await (await fetch(`${base}${path}${query}`, { headers })).arrayBuffer();
      // A routed request's completion is logged once its response has finished: wait for the last one's.
      const deadline = Date.now() + 5_000;
      const completed = () => output.join('').split('\n').filter((l) => l.includes('"request completed"')).length;
      while (completed() < requests.length - 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(completed(), requests.length - 1, 'every routed request logged its completion');

      const text = output.join('');
      const lines = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogLine);
      const incoming = lines.filter((l) => l.msg === 'incoming request').map((l) => l.req!);
      assert.deepEqual(incoming.map((r) => r.url), requests.map(([path]) => path), 'each request logged under its path alone');
      const host = new URL(base).host;
      for (const req of incoming) {
        assert.equal(req.method, 'GET');
        assert.equal(req.host, host);
        assert.equal(req.remoteAddress, '127.0.0.1');
      }
      for (const [name, secret] of Object.entries(SECRETS)) assert.ok(!text.includes(secret), `the ${name} from a query string is not in the log`);
      assert.doesNotMatch(text, /\?/, 'no query string at all');
    });
  });
}
