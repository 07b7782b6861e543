import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmbeddedDefaultUnavailableError, importDevTool, loadDevIdentityProvider, loadNodeLauncher } from './embedded-defaults.ts';

test('the embedded defaults load from server/dev/ when it is installed', async () => {
  assert.equal(typeof (await loadNodeLauncher()).launchRegtestNode, 'function');
  assert.equal(typeof (await loadDevIdentityProvider()).startDevIdentityProvider, 'function');
});

test('without server/dev/ (the production image) the start names the setting to configure', async () => {
  const missing = new URL('../dev/not-installed.ts', import.meta.url);
  await assert.rejects(importDevTool(missing, 'node'), (error: unknown) => {
    assert.ok(error instanceof EmbeddedDefaultUnavailableError);
    assert.match(error.message, /^BITCOIN_RPC_URL is not set, .*a regtest node.*server\/dev\/.*Set BITCOIN_RPC_URL to /);
    return true;
  });
  await assert.rejects(importDevTool(missing, 'identity'), (error: unknown) => {
    assert.ok(error instanceof EmbeddedDefaultUnavailableError);
    assert.match(error.message, /^OIDC_ISSUER is not set, .*identity provider.*Set OIDC_ISSUER to /);
    return true;
  });
});

test('a dev module that fails for another reason fails with its own error', async () => {
  const notAModule = new URL('data:text/javascript,throw new RangeError("broken")');
  await assert.rejects(importDevTool(notAModule, 'node'), RangeError);
});
