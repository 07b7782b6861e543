import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { explainRejectReason, isExplained, REJECT_REASONS, rejectReasonEntry, UNKNOWN_REJECTION } from './reject-reasons.ts';

/**
 * Each reason as the node words it (with the details it appends, where it
 * does), and words the explanation must contain. Every entry of the table
 * has a case here: the last test fails when one is added without it.
 */
const CASES: Array<[reason: string, code: string, words: RegExp]> = [
  ['txn-already-in-mempool', 'txn-already-in-mempool', /already in the pool's mempool/],
  ['txn-already-known', 'txn-already-known', /already known/],
  ['txn-same-nonwitness-data-in-mempool', 'txn-same-nonwitness-data-in-mempool', /different witness/],
  ['Transaction already in block chain', 'Transaction already in block chain', /already confirmed/],
  ['Transaction outputs already in utxo set', 'Transaction outputs already in utxo set', /already confirmed/],
  ['missing-inputs', 'missing-inputs', /does not know/],
  ['bad-txns-inputs-missingorspent', 'bad-txns-inputs-missingorspent', /already spent/],
  ['Inputs missing or spent', 'Inputs missing or spent', /already spent/],
  ['bad-txns-inputs-duplicate', 'bad-txns-inputs-duplicate', /same output twice/],
  ['bad-txns-prevout-null', 'bad-txns-prevout-null', /null previous output/],
  ['bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth 5', 'bad-txns-premature-spend-of-coinbase', /100 confirmations/],
  ['bad-txns-spends-conflicting-tx, 1234 spends conflicting transaction 5678', 'bad-txns-spends-conflicting-tx', /would replace/],
  ['non-final', 'non-final', /lock time has not been reached/],
  ['bad-txns-nonfinal, non-final transaction', 'bad-txns-nonfinal', /time-locked/],
  ['non-BIP68-final', 'non-BIP68-final', /relative time lock/],
  ['bad-txns-vin-empty', 'bad-txns-vin-empty', /no inputs/],
  ['bad-txns-vout-empty', 'bad-txns-vout-empty', /no outputs/],
  ['bad-txns-oversize', 'bad-txns-oversize', /larger than a block/],
  ['bad-txns-vout-negative', 'bad-txns-vout-negative', /negative amount/],
  ['bad-txns-vout-toolarge', 'bad-txns-vout-toolarge', /21 million/],
  ['bad-txns-txouttotal-toolarge', 'bad-txns-txouttotal-toolarge', /together pay more/],
  ['bad-cb-length', 'bad-cb-length', /coinbase/],
  ['coinbase', 'coinbase', /mining reward/],
  ['tx-size-small', 'tx-size-small', /65 bytes/],
  ['bad-txns-too-many-sigops, 80004', 'bad-txns-too-many-sigops', /signature operations/],
  ['bad-txns-in-belowout, value in (0.01) < value out (0.02)', 'bad-txns-in-belowout', /create money/],
  ['bad-txns-inputvalues-outofrange', 'bad-txns-inputvalues-outofrange', /inputs are worth more/],
  ['bad-txns-fee-outofrange', 'bad-txns-fee-outofrange', /fee is out of range/],
  ['min relay fee not met, 100 < 141', 'min relay fee not met', /minimum relay fee/],
  ['mempool min fee not met, 150 < 300', 'mempool min fee not met', /this full/],
  ['mempool full', 'mempool full', /mempool is full/],
  ['Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)', 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)', /far too much/],
  ['max-fee-exceeded', 'max-fee-exceeded', /far too much/],
  ['Unspendable output exceeds maximum configured by user (maxburnamount)', 'Unspendable output exceeds maximum configured by user (maxburnamount)', /burns more/],
  ['version', 'version', /version is not one/],
  ['tx-size', 'tx-size', /standard limit/],
  ['scriptsig-size', 'scriptsig-size', /scriptSig\) is larger/],
  ['scriptsig-not-pushonly', 'scriptsig-not-pushonly', /more than push data/],
  ['scriptpubkey', 'scriptpubkey', /output script is of a kind/],
  ['bare-multisig', 'bare-multisig', /bare multisig/],
  ['dust', 'dust', /too small to be worth spending/],
  ['multi-op-return', 'multi-op-return', /more than one data/],
  ['datacarrier', 'datacarrier', /OP_RETURN\) output is larger/],
  ['bad-txns-vout-script-toolarge', 'bad-txns-vout-script-toolarge', /output script is larger/],
  ['bad-txns-nonstandard-inputs', 'bad-txns-nonstandard-inputs', /non-standard input script/],
  ['bad-witness-nonstandard', 'bad-witness-nonstandard', /witness is of a kind/],
  ['bad-txns-input-script-unknown', 'bad-txns-input-script-unknown', /output script of a kind/],
  ['unexpected-witness', 'unexpected-witness', /witness data where none/],
  ['tx-witness-unexpected', 'tx-witness-unexpected', /witness data where none/],
  ['mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)', 'mandatory-script-verify-flag-failed', /not validly signed/],
  ['non-mandatory-script-verify-flag (Witness program hash mismatch)', 'non-mandatory-script-verify-flag', /relay rule/],
  ['block-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)', 'block-script-verify-flag-failed', /not validly signed/],
  ['too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]', 'too-long-mempool-chain', /too many unconfirmed ancestors or descendants/],
  ['too-large-cluster', 'too-large-cluster', /group of related/],
  ['package-mempool-limits', 'package-mempool-limits', /limits on chains/],
  ['txn-mempool-conflict', 'txn-mempool-conflict', /does not replace it/],
  ['bip125-replacement-disallowed', 'bip125-replacement-disallowed', /does not allow replacement/],
  ['insufficient fee, rejecting replacement abcd; new feerate 0.00001 <= old feerate 0.00002', 'insufficient fee', /enough more than/],
  ['replacement-adds-unconfirmed, replacement abcd adds unconfirmed input, idx 0', 'replacement-adds-unconfirmed', /may not add inputs/],
  ['too many potential replacements, rejecting replacement abcd; too many potential replacements (101 > 100)', 'too many potential replacements', /too many transactions at once/],
  ['too-many-replacements', 'too-many-replacements', /too many transactions at once/],
  ['less fees than conflicting txs; 100 < 200', 'less fees than conflicting txs', /pays less/],
  ['package RBF failed: new feerate 1 <= old feerate 2', 'package RBF failed', /cannot replace/],
  ['does not improve feerate diagram', 'does not improve feerate diagram', /pay better/],
  ['TRUC-violation, version=3 tx abcd is too big: 10010 > 10000 virtual bytes', 'TRUC-violation', /version 3/],
  ['v3-rule-violation', 'v3-rule-violation', /TRUC/],
  ['missing-ephemeral-spends', 'missing-ephemeral-spends', /ephemeral dust/],
  ['package topology disallowed. not child-with-parents or parents depend on each other.', 'package topology disallowed', /one child with its parents/],
  ['package-not-child-with-parents', 'package-not-child-with-parents', /one child with its parents/],
  ['package-not-child-with-unconfirmed-parents', 'package-not-child-with-unconfirmed-parents', /unconfirmed and spent by the child/],
  ['package-not-sorted', 'package-not-sorted', /parents must come before/],
  ['package-contains-duplicates', 'package-contains-duplicates', /same transaction twice/],
  ['conflict-in-package', 'conflict-in-package', /spend the same output/],
  ['package-too-many-transactions', 'package-too-many-transactions', /at most 25/],
  ['package-too-large', 'package-too-large', /too large altogether/],
  ['package-fee-too-low', 'package-fee-too-low', /package as a whole/],
  ['transaction failed', 'transaction failed', /each one says why/],
];

describe('reject reasons in plain words', () => {
  for (const [reason, code, words] of CASES) {
    test(`${code}: plain words first, then the node's reason`, () => {
      assert.equal(rejectReasonEntry(reason)?.code, code);
      const explained = explainRejectReason(reason);
      assert.match(explained, words);
      assert.ok(explained.endsWith(` (node: ${reason})`), explained);
      assert.ok(!explained.startsWith(reason), 'the node\'s words come after the explanation');
      assert.ok(isExplained(explained));
    });
  }

  test('a code that starts a longer one is not taken for it', () => {
    assert.equal(rejectReasonEntry('tx-size-small')?.code, 'tx-size-small');
    assert.equal(rejectReasonEntry('tx-size')?.code, 'tx-size');
    assert.equal(rejectReasonEntry('dustiness')?.code, undefined);
  });

  test('a reason the table does not know is still told, with the node\'s words', () => {
    assert.equal(explainRejectReason('some-new-rule'), `${UNKNOWN_REJECTION} (node: some-new-rule)`);
    assert.equal(isExplained('non-final'), false);
  });

  test('every entry of the table has its case above, and each code is listed once', () => {
    const codes = REJECT_REASONS.map((r) => r.code);
    assert.equal(new Set(codes).size, codes.length);
    assert.deepEqual(new Set(CASES.map(([, code]) => code)), new Set(codes));
    for (const r of REJECT_REASONS) assert.match(r.plain, /^[A-Z].*\.$/, r.code);
  });
});
