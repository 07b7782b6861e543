import { authKeyFromSecret } from '../../src/auth/auth-key-secret.ts';
import { createLocalIssuer, type LocalIssuer } from '../../src/auth/local-issuer.ts';
import { freePort } from '../../dev/bitcoin/node-launcher.ts';
import { createRpcClient, type RpcClient } from '../../src/bitcoin/rpc-client.ts';
import type { App } from '../../src/app.ts';
import type { Database, Queryable } from '../../src/db/database.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.ts';
import type { TestNode } from './regtest.ts';

/**
 * The real app with staff sign-in by local tokens, for the dashboard's API
 * tests: an administrator ('root'), a second administrator ('Rita.Admin')
 * and a viewer ('watcher').
 */

export const CLIENT_ID = 'slipstream-portal';
export const ADMIN_GROUP = 'app-slipstream-users';
/** The secret that seals the portal's signing keys in tests (AUTH_KEY_SECRET in production). */
export const TEST_AUTH_KEY = authKeyFromSecret('the secret that seals signing keys in tests only', 'the tests AUTH_KEY_SECRET');

/**
 * A token for `username`, whose account is made (or given that role) first:
 * local tokens are only good while their account exists. The account has no
 * usable password (its hash matches none); tests sign in by password with
 * accounts of their own.
 */
export async function staffToken(db: Queryable, issuer: LocalIssuer, username: string, isAdmin: boolean): Promise<string> {
  await db.query(
    `INSERT INTO staff_accounts (username, password_hash, is_admin) VALUES ($1, 'no password', $2)
     ON CONFLICT (username) DO UPDATE SET is_admin = EXCLUDED.is_admin`,
    [username, isAdmin],
  );
  return issuer.issue(username);
}

export interface StaffResponse<T> {
  statusCode: number;
  body: T;
}

export type Who = 'admin' | 'admin2' | 'viewer' | 'nobody';

export interface StaffTestApp extends TestApp {
  tokens: Record<Exclude<Who, 'nobody'>, string>;
  /** A request as `who` (default the administrator), JSON in and out. */
  call<T = Record<string, unknown>>(method: 'GET' | 'POST' | 'DELETE', url: string, options?: { body?: unknown; as?: Who; query?: Record<string, string> }): Promise<StaffResponse<T>>;
}

/** An RPC client for a node that is not there: for tests that never reach one. */
export async function absentNodeRpc(): Promise<RpcClient> {
  return createRpcClient({ url: `http://127.0.0.1:${await freePort()}`, auth: { kind: 'userpass', user: 'u', password: 'p' }, timeoutMs: 500, maxConcurrency: 1 });
}

/** `options`: more of startTestApp's (a clock, a metrics token, ...); staff sign-in is this helper's. */
export async function startStaffTestApp(db: Database, node?: TestNode, options: Omit<TestAppOptions, 'staff'> = {}): Promise<StaffTestApp> {
  const issuer = createLocalIssuer({ db, clock: systemClock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
  const t = await startTestApp(node, db, {
    ...(node ? {} : { rpc: await absentNodeRpc() }),
    ...options,
    staff: { verifier: issuer, issuer, signIn: { issuer: 'https://issuer.example', clientId: CLIENT_ID } },
  });
  const tokens = {
    admin: await staffToken(db, issuer, 'root', true),
    admin2: await staffToken(db, issuer, 'Rita.Admin', true),
    viewer: await staffToken(db, issuer, 'watcher', false),
  };
  return {
    ...t,
    tokens,
    async call(method, url, options = {}) {
      const who = options.as ?? 'admin';
      const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
      const res = await t.app.inject({
        method,
        url: `${url}${query}`,
        headers: who === 'nobody' ? {} : { authorization: `Bearer ${tokens[who]}` },
        ...(options.body === undefined ? {} : { payload: options.body as object }),
      });
      return { statusCode: res.statusCode, body: res.json() };
    },
  };
}

/** A trigger that makes every insert into `table` fail, to prove a change rolls back with its log entry. */
export async function breakInserts(db: Database, table: string): Promise<() => Promise<void>> {
  await db.exec(`
    CREATE OR REPLACE FUNCTION test_refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'test: the % insert fails', TG_TABLE_NAME;
    END
    $$;
    CREATE TRIGGER test_refuse_insert BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION test_refuse_insert();
  `);
  return () => db.exec(`DROP TRIGGER test_refuse_insert ON ${table}`);
}

/** GET a staff route with a query string through the app's own pipeline, as the holder of `token` (null: sent without one). */
export function staffGet(app: App, path: string, query: Record<string, string>, token: string | null) {
  return app.inject({
    method: 'GET',
    url: `${path}?${new URLSearchParams(query).toString()}`,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
}
