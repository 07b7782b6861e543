import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeLimitsLine, nodeName } from './node-limits.ts';

test('the node is named from its subversion: Knots with its Core base and date, Core with its version', () => {
  assert.equal(nodeName('/Satoshi:29.5.0/Knots:20260508/'), 'Bitcoin Knots 29.5.0 (20260508)');
  assert.equal(nodeName('/Satoshi:31.0.0/'), 'Bitcoin Core 31.0.0');
  assert.equal(nodeName('/Satoshi:30.1.0(pool-build)/'), 'Bitcoin Core 30.1.0');
  assert.equal(nodeName(''), 'an unnamed node');
});

test("the embedded Knots's limits are spelled out; any other node is named with where to look", () => {
  const knots = nodeLimitsLine({ subversion: '/Satoshi:29.5.0/Knots:20260508/', embedded: true });
  assert.match(knots, /^Bitcoin Knots 29\.5\.0 \(20260508\) with -acceptnonstdtxn=1 -corepolicy=1: takes transactions over 400,000 WU/);
  assert.match(knots, /refuses output scripts over 34 bytes/);
  const core = nodeLimitsLine({ subversion: '/Satoshi:31.0.0/', embedded: false });
  assert.equal(core, 'Bitcoin Core 31.0.0: what it takes depends on its version and policy flags (docs/production.md#which-node-for-which-transactions)');
  // An external Knots is not assumed to run the pool's flags.
  assert.match(nodeLimitsLine({ subversion: '/Satoshi:29.5.0/Knots:20260508/', embedded: false }), /depends on its version and policy flags/);
});
