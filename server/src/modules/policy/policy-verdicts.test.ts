import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeTxHex, encodeTxHex } from '../../bitcoin/tx-codec.ts';
import type { PricedTx } from '../submission/prevouts.ts';
import { MAX_CHECKED_SIGNATURES, MAX_CHECKED_WEIGHT, policyVerdicts, signaturesWorthChecking } from './policy-verdicts.ts';
import type { StandardVerdict } from './policy.schemas.ts';

/**
 * How the policy node's verdict (Core 29's policy) and the rules module's
 * combine into one verdict per policy: the node decides what it can run,
 * the rules what it cannot, and what neither can tell stays unknown.
 */

const P2WSH_OP_TRUE = `0020${'4ae81572f06e1b88fd5ced7a1a000945432e83e1551e6f721ee9c00b8cc33260'}`;

function txWith(outputs: Array<{ value: number; scriptPubKey: string }>) {
  const tx = decodeTxHex(encodeTxHex({ version: 2, locktime: 0, inputs: [{ txid: 'aa'.repeat(32), vout: 0, scriptSig: '', sequence: 0xffff_fffd, witness: ['51'] }], outputs }));
  const priced: PricedTx = { tx, vsize: tx.vsize, fee: 20_000 - outputs.reduce((s, o) => s + o.value, 0), missingInputs: [], mempoolAncestors: [], spent: [{ value: 20_000, script: P2WSH_OP_TRUE }], givenParents: [] };
  return { tx, priced };
}

const opReturn100 = { value: 0, scriptPubKey: `6a4c64${'ab'.repeat(100)}` };
const nonStandard = (reason: string): StandardVerdict => ({ verdict: 'non-standard', reason });
const byPolicy = (verdicts: ReturnType<typeof policyVerdicts>) => Object.fromEntries(verdicts.policies.map((p) => [p.policy, p.relays]));

describe('verdicts per policy', () => {
  test('a 100-byte OP_RETURN: Core 29 refuses it (the node says so), Core 30 relays it when the scripts are no question', () => {
    // The only input spends P2WSH(OP_TRUE): no signature to check, so the portal cannot vouch for its scripts: unknown, not a guess.
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }, opReturn100]);
    const verdicts = policyVerdicts({ tx, priced, node: nonStandard('scriptpubkey'), hasChildInPackage: false });
    assert.deepEqual(byPolicy(verdicts), { core: null, 'core-29': false, knots: null });
    assert.equal(verdicts.policies[1]!.reason, 'scriptpubkey');
    assert.deepEqual(verdicts.standard, { verdict: 'unknown' });
  });

  test('what the rules refuse for Core 30 is refused whatever the node says, with the rule\'s reason and plain words', () => {
    const { tx, priced } = txWith([{ value: 1, scriptPubKey: P2WSH_OP_TRUE }, { value: 1, scriptPubKey: P2WSH_OP_TRUE }]);
    const verdicts = policyVerdicts({ tx, priced, node: { verdict: 'unknown' }, hasChildInPackage: false });
    assert.deepEqual(verdicts.policies.map((p) => [p.policy, p.relays, p.reason]), [['core', false, 'dust'], ['core-29', false, 'dust'], ['knots', null, undefined]]);
    assert.equal(verdicts.standard.verdict, 'non-standard');
    assert.match(verdicts.standard.explanation ?? '', /\w/);
  });

  test('a script failure the node finds is every Core family\'s refusal', () => {
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    const reason = 'mempool-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)';
    const verdicts = policyVerdicts({ tx, priced, node: nonStandard(reason), hasChildInPackage: false });
    assert.deepEqual(verdicts.policies.slice(0, 2).map((p) => [p.relays, p.reason]), [[false, reason], [false, reason]]);
  });

  test('a node that accepts it: both Core families relay it', () => {
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    assert.deepEqual(byPolicy(policyVerdicts({ tx, priced, node: { verdict: 'standard' }, hasChildInPackage: false })), { core: true, 'core-29': true, knots: null });
  });

  test('a refusal only Knots makes says nothing of Core: Core 29 is then the rules\' verdict or unknown', () => {
    // A bare 1-of-2 multisig output (71 bytes of script): Core relays it, Knots refuses any output script over 34 bytes.
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }, { value: 1_000, scriptPubKey: `5121${'02' + '11'.repeat(32)}21${'03' + '22'.repeat(32)}52ae` }]);
    const verdicts = policyVerdicts({ tx, priced, node: nonStandard('bad-txns-vout-script-toolarge'), hasChildInPackage: false });
    assert.deepEqual(byPolicy(verdicts), { core: null, 'core-29': null, knots: null });
  });

  test('without the price (pool node unreachable) only what needs nothing else is told', () => {
    const { tx } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    assert.deepEqual(byPolicy(policyVerdicts({ tx, priced: undefined, node: { verdict: 'unknown' }, hasChildInPackage: false })), { core: null, 'core-29': null, knots: null });
  });

  test('each policy carries its share of the network only when the operator configured it', () => {
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    const verdicts = policyVerdicts({ tx, priced, node: { verdict: 'standard' }, hasChildInPackage: false }, { core: 80, knots: 8 });
    assert.deepEqual(verdicts.policies.map((p) => p.network_share), [80, undefined, 8]);
  });
});

describe('what a verdict may cost a public request', () => {
  test('signatures are checked only for a small transaction: 64 inputs and 10 kvB at most, else the verdict stays unknown', () => {
    const withInputs = (n: number, weight = 4_000) => ({ inputs: Array.from({ length: n }, () => ({ txid: 'aa'.repeat(32), vout: 0, scriptSig: '', sequence: 0, witness: [] })), weight });
    assert.equal(signaturesWorthChecking(withInputs(MAX_CHECKED_SIGNATURES)), true);
    assert.equal(signaturesWorthChecking(withInputs(MAX_CHECKED_SIGNATURES + 1)), false);
    assert.equal(signaturesWorthChecking(withInputs(1, MAX_CHECKED_WEIGHT)), true);
    assert.equal(signaturesWorthChecking(withInputs(1, MAX_CHECKED_WEIGHT + 1)), false);
  });
});
