import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rejectReasonEntry } from '../../server/src/bitcoin/reject-reasons.ts';
import { policyLine, standardText } from '../src/public/standard-verdict.ts';

/** The submit page's words for parse-tx's `standard` verdict (docs/behaviour.md#public-network-verdict: tell users why the public network refuses their transaction). */

test('standard and unknown in the page\'s words', () => {
  assert.equal(standardText({ verdict: 'standard' }), 'standard: the public network would relay this');
  assert.match(standardText({ verdict: 'unknown' }), /^unknown: /);
});

test('non-standard: the plain explanation, then Core\'s code', () => {
  const explanation = rejectReasonEntry('dust')!.plain;
  assert.equal(
    standardText({ verdict: 'non-standard', reason: 'dust', explanation }),
    `non-standard: public nodes refuse it because ${explanation.charAt(0).toLowerCase()}${explanation.slice(1).replace(/\.$/, '')} (dust)`,
  );
  assert.equal(standardText({ verdict: 'non-standard', reason: 'tx-size' }), 'non-standard: public nodes refuse it because of its policy (tx-size)');
});

test('per node policy: who, their share when configured, and what they would do', () => {
  assert.equal(policyLine({ policy: 'core', relays: true }), 'Bitcoin Core 30 and later: relays it');
  assert.equal(policyLine({ policy: 'core', relays: true, network_share: 80 }), 'Bitcoin Core 30 and later (80% of nodes): relays it');
  assert.equal(
    policyLine({ policy: 'core-29', relays: false, reason: 'scriptpubkey', explanation: 'An output script is of a kind the node does not relay.' }),
    'Bitcoin Core 29, and Knots with -corepolicy: refuses it because an output script is of a kind the node does not relay (scriptpubkey)',
  );
  assert.equal(policyLine({ policy: 'knots', relays: null, explanation: 'No node with its policy is configured.' }), 'Bitcoin Knots, its defaults: not known (no node with its policy is configured)');
});
