import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sighashCache, taprootKeyPathSighash } from '../../bitcoin/sighash.ts';
import { decodeTxHex, encodeTxHex } from '../../bitcoin/tx-codec.ts';
import type { PricedTx } from '../submission/prevouts.ts';
import { combinePolicies, policyVerdicts } from './policy-verdicts.ts';
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
    const verdicts = policyVerdicts({ tx, priced, node: nonStandard('scriptpubkey'), spentInPackage: new Set() });
    assert.deepEqual(byPolicy(verdicts), { core: null, 'core-29': false, knots: null });
    assert.equal(verdicts.policies[1]!.reason, 'scriptpubkey');
    assert.deepEqual(verdicts.standard, { verdict: 'unknown' });
  });

  test('what the rules refuse for Core 30 is refused whatever the node says, with the rule\'s reason and plain words', () => {
    const { tx, priced } = txWith([{ value: 1, scriptPubKey: P2WSH_OP_TRUE }, { value: 1, scriptPubKey: P2WSH_OP_TRUE }]);
    const verdicts = policyVerdicts({ tx, priced, node: { verdict: 'unknown' }, spentInPackage: new Set() });
    assert.deepEqual(verdicts.policies.map((p) => [p.policy, p.relays, p.reason]), [['core', false, 'dust'], ['core-29', false, 'dust'], ['knots', null, undefined]]);
    assert.equal(verdicts.standard.verdict, 'non-standard');
    assert.match(verdicts.standard.explanation ?? '', /\w/);
  });

  test('a script failure the node finds is every Core family\'s refusal', () => {
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    const reason = 'mempool-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)';
    const verdicts = policyVerdicts({ tx, priced, node: nonStandard(reason), spentInPackage: new Set() });
    assert.deepEqual(verdicts.policies.slice(0, 2).map((p) => [p.relays, p.reason]), [[false, reason], [false, reason]]);
  });

  test('a node that accepts it: both Core families relay it', () => {
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    assert.deepEqual(byPolicy(policyVerdicts({ tx, priced, node: { verdict: 'standard' }, spentInPackage: new Set() })), { core: true, 'core-29': true, knots: null });
  });

  test('a refusal only Knots makes says nothing of Core: Core 29 is then the rules\' verdict or unknown', () => {
    // A bare 1-of-2 multisig output (71 bytes of script): Core relays it, Knots refuses any output script over 34 bytes.
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }, { value: 1_000, scriptPubKey: `5121${'02' + '11'.repeat(32)}21${'03' + '22'.repeat(32)}52ae` }]);
    const verdicts = policyVerdicts({ tx, priced, node: nonStandard('bad-txns-vout-script-toolarge'), spentInPackage: new Set() });
    assert.deepEqual(byPolicy(verdicts), { core: null, 'core-29': null, knots: null });
  });

  test('without the price (pool node unreachable) only what needs nothing else is told', () => {
    const { tx } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    assert.deepEqual(byPolicy(policyVerdicts({ tx, priced: undefined, node: { verdict: 'unknown' }, spentInPackage: new Set() })), { core: null, 'core-29': null, knots: null });
  });

  test('the fee is judged by the size public nodes measure (20 bytes per sigop), not by the pool node\'s -bytespersigop', () => {
    // A bare 1-of-3 multisig output counts 20 legacy sigops (cost 80): at Core's 20 bytes per sigop the transaction
    // measures 80 × 20 / 4 = 400 vB, above its 167 vB of weight. Core 30's floor, 0.1 sat/vB, asks 40 sats of that.
    // A pool node at -bytespersigop=1000 prices it at 20,000 vB, where 40 sats is far below the floor.
    const multisig = `5121${'02' + '11'.repeat(32)}21${'03' + '22'.repeat(32)}21${'02' + '33'.repeat(32)}53ae`;
    const { tx } = txWith([{ value: 10_000, scriptPubKey: multisig }]);
    const judged = (fee: number) => {
      const priced: PricedTx = { tx, vsize: 20_000, fee, missingInputs: [], mempoolAncestors: [], spent: [{ value: 10_000 + fee, script: P2WSH_OP_TRUE }], givenParents: [] };
      const core = policyVerdicts({ tx, priced, node: { verdict: 'standard' }, spentInPackage: new Set() }).policies[0]!;
      return [core.relays, core.reason];
    };
    assert.deepEqual(judged(40), [true, undefined]);
    assert.deepEqual(judged(39), [false, 'min relay fee not met'], 'the floor applies, to the public size');
  });

  test('each policy carries its share of the network only when the operator configured it', () => {
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    const verdicts = policyVerdicts({ tx, priced, node: { verdict: 'standard' }, spentInPackage: new Set() }, { core: 80, knots: 8 });
    assert.deepEqual(verdicts.policies.map((p) => p.network_share), [80, undefined, 8]);
  });
});


describe('the rules module overrides the node only where Core 30 relaxed a rule', () => {
  test('a refusal both share (TRUC inheritance, dust, inputs) is the node\'s for Core 30 too, even when the rules module alone passes it', () => {
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    const reason = 'TRUC-violation, version=3 tx cannot spend from non-version=3 tx';
    assert.deepEqual(policyVerdicts({ tx, priced, node: nonStandard(reason), spentInPackage: new Set() }).policies.slice(0, 2).map((p) => [p.relays, p.reason]), [[false, reason], [false, reason]]);
  });

  test('Knots\' name for one of Core\'s refusals is given as Core\'s for the Core policies, and as Knots\' own for Knots', () => {
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    const verdicts = policyVerdicts({ tx, priced, node: nonStandard('bad-witness-stackitem-size'), knots: nonStandard('bad-witness-stackitem-size'), spentInPackage: new Set() });
    assert.deepEqual(verdicts.policies.map((p) => p.reason), ['bad-witness-nonstandard', 'bad-witness-nonstandard', 'bad-witness-stackitem-size']);
  });

  test('a 100-byte OP_RETURN whose scripts the portal can vouch for: Core 30 relays it; one signature budget for the whole request', () => {
    const signed = (n: number, locktime = 0) => keyPathSpend(n, locktime);
    const one = signed(1);
    const verdict = (t: ReturnType<typeof signed>, tipHeight?: number) => combinePolicies([{ tx: t.tx, priced: t.priced }], { node: new Map([[t.tx, nonStandard('scriptpubkey')]]), knots: undefined, tipHeight }).get(t.tx)!.policies[0]!.relays;
    assert.equal(verdict(one), true);
    // A bad signature: not vouched for.
    const forged = signed(1);
    forged.tx.inputs[0]!.witness = [`${forged.tx.inputs[0]!.witness[0]!.slice(0, -2)}00`];
    assert.equal(verdict(forged), null);
    // A height lock time not yet reached at the next block: unknown (Core says non-final); reached: vouched.
    assert.equal(verdict(signed(1, 200), 150), null);
    assert.equal(verdict(signed(1, 200), 200), true);
    // The request's budget is shared: two transactions of 40 inputs each, only the first is checked.
    const [a, b] = [signed(40), signed(40)];
    const both = combinePolicies([{ tx: a.tx, priced: a.priced }, { tx: b.tx, priced: b.priced }], { node: new Map([[a.tx, nonStandard('scriptpubkey')], [b.tx, nonStandard('scriptpubkey')]]), knots: undefined, tipHeight: 100 });
    assert.deepEqual([both.get(a.tx)!.policies[0]!.relays, both.get(b.tx)!.policies[0]!.relays], [true, null]);
  });
});

describe('a parent below the floor with one child that pays for both (Core 31 package relay)', () => {
  /** A child spending `parent`'s first output, paying `fee`. */
  function childOf(parent: ReturnType<typeof txWith>, fee: number) {
    const value = parent.tx.outputs[0]!.value;
    const tx = decodeTxHex(encodeTxHex({ version: 2, locktime: 0, inputs: [{ txid: parent.tx.txid, vout: 0, scriptSig: '', sequence: 0xffff_fffd, witness: ['51'] }], outputs: [{ value: value - fee, scriptPubKey: P2WSH_OP_TRUE }] }));
    const priced: PricedTx = { tx, vsize: tx.vsize, fee, missingInputs: [], mempoolAncestors: [], spent: [{ value, script: P2WSH_OP_TRUE }], givenParents: [] };
    return { tx, priced };
  }
  const judge = (pair: Array<ReturnType<typeof txWith>>) => combinePolicies(pair, { node: new Map(pair.map((p) => [p.tx, { verdict: 'standard' as const }])), knots: undefined, tipHeight: 100 });

  test('Core 30 refuses a 0-fee parent and its child; the verdict says Core 31 relays the pair, and only when the child pays the floor for both', () => {
    const parent = txWith([{ value: 20_000, scriptPubKey: P2WSH_OP_TRUE }]);
    assert.equal(parent.priced.fee, 0);
    const paying = childOf(parent, 100);
    const verdicts = judge([parent, paying]);
    const [p, c] = [verdicts.get(parent.tx)!.policies[0]!, verdicts.get(paying.tx)!.policies[0]!];
    assert.deepEqual([p.relays, p.reason, c.relays], [false, 'min relay fee not met', false]);
    assert.match(p.explanation ?? '', new RegExp(`Core 31 and later relay it with its child ${paying.tx.txid}`));
    assert.match(c.explanation ?? '', new RegExp(`ancestor ${parent.tx.txid} is refused: .*Core 31 and later relay it`));
    // A child paying 1 sat for both is below the floor as a pair too: nothing for Core 31 to relay.
    const poor = childOf(parent, 1);
    assert.doesNotMatch(judge([parent, poor]).get(parent.tx)!.policies[0]!.explanation ?? '', /Core 31/);
    // Two children: not one parent and one child.
    const second = childOf(parent, 150);
    assert.doesNotMatch(judge([parent, paying, second]).get(parent.tx)!.policies[0]!.explanation ?? '', /Core 31/);
  });
});

describe('a portal ancestor in the pool\'s mempool that Core 30 refuses', () => {
  test('its child is refused with it for Core 30, whatever the Core 29 node said; Core 29\'s verdict is the node\'s', () => {
    const { tx, priced } = txWith([{ value: 10_000, scriptPubKey: P2WSH_OP_TRUE }]);
    const parent = 'ab'.repeat(32);
    const nodes = { node: new Map([[tx, { verdict: 'standard' as const }]]), knots: undefined, tipHeight: 100 };
    const judged = (ancestorRefusals?: Map<typeof tx, { txid: string; reason: string }>) => combinePolicies([{ tx, priced }], { ...nodes, ...(ancestorRefusals ? { ancestorRefusals } : {}) }).get(tx)!;
    assert.deepEqual(byPolicy(judged()), { core: true, 'core-29': true, knots: null });
    const refused = judged(new Map([[tx, { txid: parent, reason: 'bad-txns-nonstandard-inputs' }]]));
    assert.deepEqual(byPolicy(refused), { core: false, 'core-29': true, knots: null });
    assert.equal(refused.policies[0]!.reason, 'bad-txns-nonstandard-inputs');
    assert.match(refused.policies[0]!.explanation ?? '', new RegExp(`^Its unconfirmed ancestor ${parent} is refused: \\w`));
    assert.equal(refused.standard.verdict, 'non-standard');
  });
});

/** A version 2 transaction spending `n` P2TR outputs by key path, validly signed (BIP340 over BIP341's digest), with a 100-byte OP_RETURN. */
function keyPathSpend(n: number, locktime: number) {
  const secret = new Uint8Array(32).fill(7);
  const xonly = Buffer.from(schnorr.getPublicKey(secret)).toString('hex');
  const spent = Array.from({ length: n }, () => ({ value: 10_000, script: `5120${xonly}` }));
  const unsigned = decodeTxHex(encodeTxHex({
    version: 2,
    locktime,
    inputs: spent.map((_, i) => ({ txid: 'cd'.repeat(32), vout: i, scriptSig: '', sequence: 0xffff_fffd, witness: [] })),
    outputs: [{ value: 0, scriptPubKey: opReturn100.scriptPubKey }, { value: n * 10_000 - 1_000, scriptPubKey: P2WSH_OP_TRUE }],
  }));
  const cache = sighashCache(unsigned, spent);
  const witnesses = spent.map((_, i) => [Buffer.from(schnorr.sign(taprootKeyPathSighash(cache, i, 0x00)!, secret)).toString('hex')]);
  const tx = decodeTxHex(encodeTxHex({ ...unsigned, inputs: unsigned.inputs.map((input, i) => ({ ...input, witness: witnesses[i]! })) }));
  const priced: PricedTx = { tx, vsize: tx.vsize, fee: 1_000, missingInputs: [], mempoolAncestors: [], spent, givenParents: [] };
  return { tx, priced };
}
