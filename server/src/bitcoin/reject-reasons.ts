/**
 * Why the node refused a transaction, in plain words: one table for every
 * reason Bitcoin Core's and Knots' mempool acceptance gives
 * (sendrawtransaction, testmempoolaccept, submitpackage), so that users see
 * what went wrong and what they can do, followed by the node's own code
 * (which staff, wallets and search engines know).
 *
 * Where the codes come from (Bitcoin Core 28-29, Knots 29):
 * - consensus/tx_check.cpp CheckTransaction and consensus/tx_verify.cpp
 *   CheckTxInputs: the structural and amount checks (bad-txns-*);
 * - policy/policy.cpp IsStandardTx, AreInputsStandard, IsWitnessStandard:
 *   standardness (version, tx-size, scriptsig-*, scriptpubkey, dust, ...);
 * - validation.cpp MemPoolAccept (PreChecks, ReplacementChecks,
 *   PackageMempoolChecks, PolicyScriptChecks, ConsensusScriptChecks) and
 *   policy/rbf.cpp, policy/truc_policy.cpp, policy/ephemeral_policy.cpp:
 *   the mempool's own rules (fees, chains, replacement, TRUC);
 * - policy/packages.cpp and rpc/mempool.cpp submitpackage: package rules;
 * - node/transaction.cpp + util/error.cpp TransactionErrorString: the
 *   sentences sendrawtransaction answers instead of a code.
 * A reason may carry details after its code ("min relay fee not met, 100 <
 * 141", "mandatory-script-verify-flag-failed (Signature must be zero ...)"):
 * the entry is found by the code, and the whole reason is quoted.
 *
 * Kept free of the portal's own concerns (no HTTP, no privacy rules): the
 * submission paths decide what may be told (private-conflicts.ts), this
 * table only says it in words.
 */

export interface RejectReason {
  /** The node's code, as it starts the reason. */
  code: string;
  /** What it means for the user, and what to do about it. */
  plain: string;
}

export const REJECT_REASONS: readonly RejectReason[] = [
  // Already there, or already mined (PreChecks; node/transaction.cpp).
  { code: 'txn-already-in-mempool', plain: "The transaction is already in the pool's mempool: nothing more to do." },
  { code: 'txn-already-known', plain: 'The transaction is already known to the node: it is in the mempool or already confirmed in a block.' },
  { code: 'txn-same-nonwitness-data-in-mempool', plain: 'The same transaction, with a different witness, is already in the mempool.' },
  { code: 'Transaction already in block chain', plain: 'The transaction is already confirmed in a block.' },
  { code: 'Transaction outputs already in utxo set', plain: 'The transaction is already confirmed in a block.' },
  // Inputs.
  { code: 'missing-inputs', plain: 'Some inputs spend outputs the mining node does not know: they do not exist, are already spent, or belong to a transaction not yet confirmed.' },
  { code: 'bad-txns-inputs-missingorspent', plain: 'Some inputs spend outputs the mining node does not know: they do not exist, are already spent, or belong to a transaction not yet confirmed.' },
  { code: 'Inputs missing or spent', plain: 'Some inputs spend outputs the mining node does not know: they do not exist, are already spent, or belong to a transaction not yet confirmed.' },
  { code: 'bad-txns-inputs-duplicate', plain: 'The transaction spends the same output twice.' },
  { code: 'bad-txns-prevout-null', plain: 'An input refers to no output (a null previous output), which only a coinbase may do.' },
  { code: 'bad-txns-premature-spend-of-coinbase', plain: 'The transaction spends a mining reward before it has 100 confirmations.' },
  { code: 'bad-txns-spends-conflicting-tx', plain: 'The transaction spends an output of a transaction it would replace.' },
  // Time locks.
  { code: 'non-final', plain: 'The transaction is time-locked: its lock time has not been reached yet, so no block can include it. Submit it again once the lock time has passed.' },
  { code: 'bad-txns-nonfinal', plain: 'The transaction is time-locked: its lock time has not been reached yet, so no block can include it.' },
  { code: 'non-BIP68-final', plain: 'An input has a relative time lock (BIP 68) that has not expired yet. Submit it again once enough blocks have passed.' },
  // Structure (CheckTransaction).
  { code: 'bad-txns-vin-empty', plain: 'The transaction has no inputs.' },
  { code: 'bad-txns-vout-empty', plain: 'The transaction has no outputs.' },
  { code: 'bad-txns-oversize', plain: 'The transaction is larger than a block can hold.' },
  { code: 'bad-txns-vout-negative', plain: 'An output has a negative amount.' },
  { code: 'bad-txns-vout-toolarge', plain: 'An output pays more than 21 million bitcoin.' },
  { code: 'bad-txns-txouttotal-toolarge', plain: 'The outputs together pay more than 21 million bitcoin.' },
  { code: 'bad-cb-length', plain: 'A coinbase transaction cannot be submitted.' },
  { code: 'coinbase', plain: 'A coinbase (mining reward) transaction cannot be submitted: only a block can hold it.' },
  { code: 'tx-size-small', plain: 'The transaction is too small: under 65 bytes without its witness, which the network refuses.' },
  { code: 'bad-txns-too-many-sigops', plain: 'The transaction has more signature operations than a block allows.' },
  // Amounts and fees (CheckTxInputs, PreChecks).
  { code: 'bad-txns-in-belowout', plain: 'The outputs are worth more than the inputs: the transaction would create money.' },
  { code: 'bad-txns-inputvalues-outofrange', plain: 'The inputs are worth more than 21 million bitcoin.' },
  { code: 'bad-txns-fee-outofrange', plain: 'The fee is out of range.' },
  { code: 'min relay fee not met', plain: "The fee is below the node's minimum relay fee rate. Raise the fee and submit again." },
  { code: 'mempool min fee not met', plain: "The fee is below what the pool's mempool needs while it is this full. Raise the fee and submit again." },
  { code: 'mempool full', plain: "The pool's mempool is full and the fee is too low to make room for it. Raise the fee or try again later." },
  { code: 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)', plain: 'The fee is higher than the node accepts, as a guard against paying far too much by mistake. Check the fee.' },
  { code: 'max-fee-exceeded', plain: 'The fee is higher than the node accepts, as a guard against paying far too much by mistake. Check the fee.' },
  { code: 'Unspendable output exceeds maximum configured by user (maxburnamount)', plain: 'An unspendable output burns more than the node accepts.' },
  // Standardness (IsStandardTx and friends).
  { code: 'version', plain: 'The transaction version is not one the node relays.' },
  { code: 'tx-size', plain: 'The transaction is larger than the node relays (its weight is over the standard limit).' },
  { code: 'scriptsig-size', plain: 'An input script (scriptSig) is larger than the node relays.' },
  { code: 'scriptsig-not-pushonly', plain: 'An input script (scriptSig) does more than push data, which the node does not relay.' },
  { code: 'scriptpubkey', plain: 'An output script is of a kind the node does not relay.' },
  { code: 'bare-multisig', plain: 'An output is bare multisig, which the node does not relay.' },
  { code: 'dust', plain: 'An output is too small to be worth spending (dust). Raise its amount or remove it.' },
  { code: 'multi-op-return', plain: 'The transaction has more than one data (OP_RETURN) output, which the node does not relay.' },
  { code: 'datacarrier', plain: 'A data (OP_RETURN) output is larger than the node relays.' },
  { code: 'bad-txns-vout-script-toolarge', plain: 'An output script is larger than the node relays.' },
  { code: 'bad-txns-nonstandard-inputs', plain: 'An input spends an output in a way the node does not relay (a non-standard input script).' },
  { code: 'bad-witness-nonstandard', plain: 'A witness is of a kind or size the node does not relay.' },
  { code: 'bad-txns-input-script-unknown', plain: 'An input spends an output script of a kind the node does not relay.' },
  { code: 'unexpected-witness', plain: 'An input has witness data where none is allowed.' },
  { code: 'tx-witness-unexpected', plain: 'An input has witness data where none is allowed.' },
  // Scripts and signatures (PolicyScriptChecks, ConsensusScriptChecks).
  { code: 'mandatory-script-verify-flag-failed', plain: 'A signature or script check failed: the transaction is not validly signed for the outputs it spends.' },
  { code: 'non-mandatory-script-verify-flag', plain: 'A script breaks a relay rule of the node (it would be valid in a block, but the node does not relay it).' },
  { code: 'block-script-verify-flag-failed', plain: 'A signature or script check failed: the transaction is not validly signed for the outputs it spends.' },
  // Chains of unconfirmed transactions (mempool limits).
  { code: 'too-long-mempool-chain', plain: 'The transaction has too many unconfirmed ancestors or descendants in the mempool. Wait for some of them to confirm and submit again.' },
  { code: 'too-large-cluster', plain: 'The transaction joins too large a group of related unconfirmed transactions. Wait for some of them to confirm and submit again.' },
  { code: 'package-mempool-limits', plain: 'The package would exceed the limits on chains of unconfirmed transactions.' },
  // Replacement (policy/rbf.cpp).
  { code: 'txn-mempool-conflict', plain: 'The transaction spends the same outputs as a transaction already in the mempool, and does not replace it.' },
  { code: 'bip125-replacement-disallowed', plain: 'The transaction conflicts with a transaction in the mempool that does not allow replacement.' },
  { code: 'insufficient fee', plain: 'The transaction does not pay enough more than the transactions it would replace. Raise the fee and submit again.' },
  { code: 'replacement-adds-unconfirmed', plain: 'A replacement may not add inputs that spend unconfirmed outputs.' },
  { code: 'too many potential replacements', plain: 'The transaction would replace too many transactions at once.' },
  { code: 'too-many-replacements', plain: 'The transaction would replace too many transactions at once.' },
  { code: 'less fees than conflicting txs', plain: 'The package pays less than the transactions it would replace. Raise the fee and submit again.' },
  { code: 'package RBF failed', plain: 'The package cannot replace the transactions it conflicts with.' },
  { code: 'does not improve feerate diagram', plain: 'The replacement would not make the mempool pay better. Raise the fee and submit again.' },
  // Version 3 (TRUC) and ephemeral dust.
  { code: 'TRUC-violation', plain: 'The transaction breaks the rules for version 3 (TRUC) transactions: at most one unconfirmed parent or child, and limited size.' },
  { code: 'v3-rule-violation', plain: 'The transaction breaks the rules for version 3 (TRUC) transactions: at most one unconfirmed parent or child, and limited size.' },
  { code: 'missing-ephemeral-spends', plain: 'The transaction leaves a zero-value (ephemeral dust) output of its parent unspent.' },
  // Packages (policy/packages.cpp, submitpackage).
  { code: 'package topology disallowed', plain: 'The package must be one child with its parents, parents first, and the parents may not depend on each other.' },
  { code: 'package-not-child-with-parents', plain: 'The package must be one child with its parents, parents first.' },
  { code: 'package-not-child-with-unconfirmed-parents', plain: 'Every parent in the package must be unconfirmed and spent by the child.' },
  { code: 'package-not-sorted', plain: 'The package is not in order: parents must come before the transactions that spend them.' },
  { code: 'package-contains-duplicates', plain: 'The package contains the same transaction twice.' },
  { code: 'conflict-in-package', plain: 'Two transactions of the package spend the same output.' },
  { code: 'package-too-many-transactions', plain: 'The package holds too many transactions (at most 25).' },
  { code: 'package-too-large', plain: 'The package is too large altogether.' },
  { code: 'package-fee-too-low', plain: 'The package as a whole pays too low a fee rate. Raise the fee and submit again.' },
  { code: 'transaction failed', plain: 'A transaction of the package was refused; each one says why.' },
];

/** Longest codes first, so that a code which starts another one ("tx-size", "tx-size-small") never takes its place. */
const BY_LENGTH = [...REJECT_REASONS].sort((a, b) => b.code.length - a.code.length);

/** What may follow a code in a reason: its details. */
const DETAIL_START = [',', ';', ' (', ':', '.', ' '];

/** The table's entry for the node's `reason`, or undefined for a reason the table does not know. */
export function rejectReasonEntry(reason: string): RejectReason | undefined {
  const text = reason.trim();
  return BY_LENGTH.find((r) => text === r.code || DETAIL_START.some((d) => text.startsWith(r.code + d)));
}

export const UNKNOWN_REJECTION = 'The mining node refused the transaction.';

/** `reason` in plain words, followed by the node's own words: "Plain sentence. (node: code, details)". */
export function explainRejectReason(reason: string): string {
  const text = reason.trim();
  const entry = rejectReasonEntry(text);
  return `${entry?.plain ?? UNKNOWN_REJECTION} (node: ${text})`;
}

/** Whether `message` is already explained (so it is not explained twice). */
export function isExplained(message: string): boolean {
  return / \(node: .*\)$/s.test(message);
}
