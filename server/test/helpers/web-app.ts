import { freePort } from '../../dev/bitcoin/node-launcher.ts';
import { startDevIdentityProvider, type DevIdentityProvider } from '../../dev/auth/dev-identity-provider.ts';
import { createLocalIssuer, routeByIssuer } from '../../src/auth/local-issuer.ts';
import { createTokenVerifier } from '../../src/auth/token-verifier.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { devRedirects } from '../../src/runtime.ts';
import type { Database } from '../../src/db/database.ts';
import type { Browser, BrowserContext } from 'playwright-core';
import { WEB_DIST_DIR } from './browser.ts';
import type { TestNode } from './regtest.ts';
import { TEST_AUTH_KEY } from './staff-app.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.ts';

export const CLIENT_ID = 'slipstream-portal';
export const ADMIN_GROUP = 'app-slipstream-users';

export interface WebTestApp extends TestApp {
  /** e.g. http://127.0.0.1:PORT */
  base: string;
  idp: DevIdentityProvider;
  password(username: 'admin' | 'viewer'): string;
}

/**
 * The whole product as a browser meets it: the built web app and the API on
 * one listening port, staff sign-in through the embedded OpenID provider
 * (whose redirect URIs name that port) and local staff accounts.
 */
export async function startWebTestApp(node: TestNode, db: Database, options: TestAppOptions = {}): Promise<WebTestApp> {
  // The provider must know the app's address before the app exists; the port
  // is free now and taken again a moment later.
  const port = await freePort();
  const idp = await startDevIdentityProvider({ port: 0, clientId: CLIENT_ID, ...devRedirects({ host: '127.0.0.1', port }), production: false });
  let t: TestApp | undefined;
  try {
    const local = createLocalIssuer({ db, clock: systemClock, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, authKey: TEST_AUTH_KEY });
    const provider = createTokenVerifier({ issuer: idp.issuer, clientId: CLIENT_ID, adminGroup: ADMIN_GROUP, jwksCooldownMs: 0 });
    t = await startTestApp(node, db, {
      webDistDir: WEB_DIST_DIR,
      ...options,
      staff: {
        verifier: routeByIssuer(local, provider),
        issuer: local,
        signIn: { issuer: idp.issuer, clientId: CLIENT_ID },
      },
    });
    await t.app.listen({ port, host: '127.0.0.1' });
  } catch (error) {
    await t?.close();
    await idp.close();
    throw error;
  }
  const app = t;
  return {
    ...app,
    base: `http://127.0.0.1:${port}`,
    idp,
    password: (username) => idp.staff.find((s) => s.username === username)!.password,
    async close() {
      await app.close();
      await idp.close();
    },
  };
}

/** A fresh browser profile signed in at the provider's own page as `username`, left on the dashboard. */
export async function signedInContext(browser: Browser, app: WebTestApp, username: 'admin' | 'viewer'): Promise<BrowserContext> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${app.base}/dashboard`);
  await page.waitForURL((url) => url.href.startsWith(app.idp.issuer));
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(app.password(username));
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Landed back on the dashboard before anything closes: a context closed mid-navigation can hang Chromium.
  await page.waitForURL((url) => url.origin === app.base && url.pathname === '/dashboard');
  await page.getByRole('navigation', { name: 'Dashboard sections' }).waitFor();
  await page.close();
  return context;
}
