import { checkSignatures, isStrictDer } from '../../bitcoin/signature-check.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';

/**
 * Whether the portal can vouch, without a node, that a transaction passes
 * what a Bitcoin Core node checks after its standardness rules: finality,
 * relative lock times, and every input's script under the standard script
 * flags. Used when the policy node (Core 29's policy) stopped at a rule Core
 * 30 no longer has, before it ran any of that (policy-verdicts.ts).
 *
 * Only where that is certain: every input a segwit single-key spend
 * (P2WPKH with a compressed key, a strict-DER low-S signature and a defined
 * hash type; or a P2TR key path), an empty scriptSig, final at the next
 * block (a height lock time at most the tip's height, or every sequence
 * final), no BIP68 relative lock, and every signature valid. Anything else
 * is not vouched for, and its verdict stays unknown. Not checked: whether
 * a spent coinbase output has matured (100 confirmations), which the pool
 * node refuses on submission anyway.
 *
 * Each signature is a curve operation (about a millisecond or more): a
 * request's verdicts together check at most MAX_VOUCHED_INPUTS inputs
 * (`budget`), so a public parse-tx never buys more than that.
 */

/** Inputs whose signatures one request's verdicts may check, all transactions together. */
export const MAX_VOUCHED_INPUTS = 64;
/** Nor a transaction over 10 kvB. */
export const MAX_VOUCHED_WEIGHT = 40_000;

const SEQUENCE_FINAL = 0xffff_ffff;
/** BIP68: with this bit set an input has no relative lock. */
const SEQUENCE_LOCKTIME_DISABLE_FLAG = 0x8000_0000;
/** Lock times from here on are Unix times, not heights. */
const LOCKTIME_THRESHOLD = 500_000_000;
const DEFINED_HASH_TYPES = new Set([0x01, 0x02, 0x03, 0x81, 0x82, 0x83]);

/** The checks a request's verdicts still may make; shared by every transaction of the request. */
export interface VouchBudget {
  inputs: number;
}

export const newVouchBudget = (): VouchBudget => ({ inputs: MAX_VOUCHED_INPUTS });

export function scriptsVouched(tx: DecodedTx, spent: ReadonlyArray<{ value: number; script: string } | undefined>, tipHeight: number | undefined, budget: VouchBudget): boolean {
  if (tx.weight > MAX_VOUCHED_WEIGHT || tx.inputs.length > budget.inputs) return false;
  if (!isFinalAtNextBlock(tx, tipHeight) || hasRelativeLock(tx)) return false;
  for (let i = 0; i < tx.inputs.length; i++) {
    const input = tx.inputs[i]!;
    const script = spent[i]?.script.toLowerCase();
    if (script === undefined || input.scriptSig !== '') return false;
    if (/^0014[0-9a-f]{40}$/.test(script)) {
      if (!standardKeyHashWitness(input.witness)) return false;
    } else if (/^5120[0-9a-f]{64}$/.test(script)) {
      if (!standardKeyPathWitness(input.witness)) return false;
    } else {
      return false;
    }
  }
  budget.inputs -= tx.inputs.length;
  return checkSignatures(tx, spent).ok;
}

/** consensus/tx_verify.cpp IsFinalTx for a block at tip + 1; a time lock is not judged here (it needs the median time past). */
function isFinalAtNextBlock(tx: DecodedTx, tipHeight: number | undefined): boolean {
  if (tx.locktime === 0 || tx.inputs.every((i) => i.sequence === SEQUENCE_FINAL)) return true;
  return tipHeight !== undefined && tx.locktime < LOCKTIME_THRESHOLD && tx.locktime < tipHeight + 1;
}

/** BIP68 applies from version 2 to inputs without the disable flag. */
function hasRelativeLock(tx: DecodedTx): boolean {
  return (tx.version | 0) >= 2 && tx.inputs.some((i) => (i.sequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) === 0);
}

/** P2WPKH as the standard flags want it: [signature, compressed key], strict DER, a defined hash type (low S is checkSignatures'). */
function standardKeyHashWitness(witness: readonly string[]): boolean {
  if (witness.length !== 2) return false;
  const [sig, key] = witness.map((w) => Buffer.from(w, 'hex')) as [Buffer, Buffer];
  if (key.length !== 33 || (key[0] !== 0x02 && key[0] !== 0x03)) return false;
  return isStrictDer(sig) && DEFINED_HASH_TYPES.has(sig[sig.length - 1]!);
}

/** A key-path spend: one 64-byte signature, or 65 with a defined hash type (no annex: that is already non-standard). */
function standardKeyPathWitness(witness: readonly string[]): boolean {
  if (witness.length !== 1) return false;
  const sig = Buffer.from(witness[0]!, 'hex');
  return sig.length === 64 || (sig.length === 65 && DEFINED_HASH_TYPES.has(sig[64]!));
}
