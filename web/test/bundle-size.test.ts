import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** The built web app; TEST_WEB_DIST_DIR points the test at another build (e.g. an older one, to see it fail there). */
const WEB_DIST_DIR = process.env.TEST_WEB_DIST_DIR ?? path.resolve(import.meta.dirname, '../dist');

/**
 * The public pages' first-load budget (docs/architecture.md#performance-budgets) on the production build (npm test builds it first):
 * the JavaScript a public page loads before anything else is at most 150 KB
 * gzipped, and the dashboard and sign-in code is not part of it; nor is
 * the queue page (docs/behaviour.md#batch-page) for many transactions, or its archive reader (fflate).
 */

const BUDGET_BYTES = 150 * 1024;

test('the public pages\' initial JavaScript is at most 150 KB gzipped; staff code, the queue page and archive code load lazily', () => {
  const html = readFileSync(path.join(WEB_DIST_DIR, 'index.html'), 'utf8');
  // The entry module and everything Vite preloads with it.
  const initial = [...html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"|<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)].map(
    (m) => (m[1] ?? m[2])!,
  );
  assert.ok(initial.length >= 1, 'index.html loads an entry module');
  let total = 0;
  for (const src of initial) {
    const code = readFileSync(path.join(WEB_DIST_DIR, src));
    total += gzipSync(code, { level: 9 }).length;
    assert.doesNotMatch(src, /dashboard|oidc|login/, `${src} is staff code in the initial load`);
    // The OpenID client's own name appears nowhere in the public entry.
    assert.doesNotMatch(code.toString('utf8'), /signinRedirect/, `${src} carries the sign-in client`);
    assert.doesNotMatch(src, /batch|archive/, `${src} is queue or archive code in the initial load`);
    // fflate's own error text, and the queue page's refusals.
    assert.doesNotMatch(code.toString('utf8'), /invalid zip data|Nothing was added to the queue/, `${src} carries the archive reader or the queue page`);
  }
  assert.ok(total <= BUDGET_BYTES, `initial JavaScript is ${(total / 1024).toFixed(1)} KB gzipped (budget 150 KB)`);
});
