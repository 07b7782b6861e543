import { createHash } from 'node:crypto';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { legacySighash, sighashCache, taprootKeyPathSighash, witnessV0Sighash, type SighashCache, type SpentOutput } from './sighash.ts';
import type { DecodedTx } from './tx-codec.ts';

/**
 * Checks the signatures of a transaction's inputs, for the input types whose
 * whole spending condition is one signature by one key: P2PKH and P2WPKH
 * (ECDSA, legacy and BIP143 digests), P2SH-wrapped P2WPKH, and taproot
 * key-path spends (BIP340 Schnorr over the BIP341 digest). The curve
 * arithmetic is @noble/curves'.
 *
 * Why the portal checks at all: the node says "non-final", "mempool min fee
 * not met" or "too-long-mempool-chain" before it runs any script (Bitcoin
 * Core validation.cpp MemPoolAccept::PreChecks), so none of those refusals
 * says the transaction is signed. A transaction kept for a later retry must
 * be one that can succeed then; anything else is a stranger's free storage.
 *
 * An input of any other type (multisig, P2WSH, a taproot script path, ...)
 * is "unsupported": this check cannot vouch for it, and the caller treats
 * that as not verified.
 */

export type SignatureVerdict =
  | { ok: true }
  | { ok: false; input: number; reason: 'unsupported' | 'invalid' | 'missing-prevout' | 'too-costly' };

/**
 * Legacy digests rehash the whole transaction per input (quadratic): past
 * this many bytes hashed in all, the check gives up ("too-costly") rather
 * than let one request take seconds of CPU.
 */
export const MAX_LEGACY_HASHED_BYTES = 32 * 1024 * 1024;
/** Each signature costs a curve operation (well under a millisecond): past this many inputs the check gives up. */
export const MAX_CHECKED_INPUTS = 2_500;

const hash160 = (bytes: Buffer): string => createHash('ripemd160').update(createHash('sha256').update(bytes).digest()).digest('hex');

const P2PKH = /^76a914([0-9a-f]{40})88ac$/;
const P2WPKH = /^0014([0-9a-f]{40})$/;
const P2SH = /^a914([0-9a-f]{40})87$/;
const P2TR = /^5120([0-9a-f]{64})$/;

/** The data pushes of a push-only script, or undefined when it holds anything else (script/script.cpp GetScriptOp). */
export function scriptPushes(hex: string): Buffer[] | undefined {
  const script = Buffer.from(hex, 'hex');
  const pushes: Buffer[] = [];
  let pos = 0;
  while (pos < script.length) {
    const op = script[pos++]!;
    let length: number;
    if (op >= 0x01 && op <= 0x4b) length = op;
    else if (op === 0x4c && pos + 1 <= script.length) {
      length = script.readUInt8(pos);
      pos += 1;
    } else if (op === 0x4d && pos + 2 <= script.length) {
      length = script.readUInt16LE(pos);
      pos += 2;
    } else if (op === 0x4e && pos + 4 <= script.length) {
      length = script.readUInt32LE(pos);
      pos += 4;
    } else return undefined;
    if (pos + length > script.length) return undefined;
    pushes.push(script.subarray(pos, pos + length));
    pos += length;
  }
  return pushes;
}

/**
 * BIP66 strict DER, with the hash type byte at the end (script/interpreter.cpp
 * IsValidSignatureEncoding): consensus since block 363,725.
 */
export function isStrictDer(sig: Buffer): boolean {
  if (sig.length < 9 || sig.length > 73) return false;
  if (sig[0] !== 0x30 || sig[1] !== sig.length - 3) return false;
  const lenR = sig[3]!;
  if (5 + lenR >= sig.length) return false;
  const lenS = sig[5 + lenR]!;
  if (lenR + lenS + 7 !== sig.length) return false;
  if (sig[2] !== 0x02 || lenR === 0 || (sig[4]! & 0x80) !== 0) return false;
  if (lenR > 1 && sig[4] === 0x00 && (sig[5]! & 0x80) === 0) return false;
  if (sig[lenR + 4] !== 0x02 || lenS === 0 || (sig[lenR + 6]! & 0x80) !== 0) return false;
  if (lenS > 1 && sig[lenR + 6] === 0x00 && (sig[lenR + 7]! & 0x80) === 0) return false;
  return true;
}

/** A strict-DER integer as 32 big-endian bytes, or undefined when it does not fit (then no key verifies it). */
function scalar32(bytes: Buffer): Buffer | undefined {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const digits = bytes.subarray(start);
  if (digits.length > 32) return undefined;
  const out = Buffer.alloc(32);
  digits.copy(out, 32 - digits.length);
  return out;
}

/**
 * An ECDSA signature as a script carries it (DER, then the hash type byte)
 * checked against `digestOf(hashType)`. A high S does not verify: it is
 * consensus-valid, but no mempool takes it (see below), and the portal
 * checks what the pool's node would take.
 */
function ecdsaValid(sigWithType: Buffer, pubkey: Buffer, digestOf: (hashType: number) => Buffer): 'valid' | 'invalid' | 'unsupported' {
  // Hybrid keys (0x06, 0x07) are valid under consensus but not in this curve library: not vouched for.
  if (pubkey.length === 65 && (pubkey[0] === 0x06 || pubkey[0] === 0x07)) return 'unsupported';
  if (!isStrictDer(sigWithType)) return 'invalid';
  const hashType = sigWithType[sigWithType.length - 1]!;
  const der = sigWithType.subarray(0, -1);
  const lenR = der[3]!;
  const r = scalar32(der.subarray(4, 4 + lenR));
  const s = scalar32(der.subarray(6 + lenR));
  if (!r || !s) return 'invalid';
  try {
    // lowS: a high S is valid by consensus but never taken into a mempool (SCRIPT_VERIFY_LOW_S is among the
    // standard script flags, which Core applies to every mempool entry, -acceptnonstdtxn or not). Counting
    // it valid would let anyone with a signed transaction make a second copy (S → n − S, same txid) the
    // node refuses unless it already holds the first: a probe of the private mempool.
    return secp256k1.verify(Buffer.concat([r, s]), digestOf(hashType), pubkey, { prehash: false, lowS: true, format: 'compact' }) ? 'valid' : 'invalid';
  } catch {
    // Not a point on the curve, r or s zero or past the group order.
    return 'invalid';
  }
}

type InputCheck = 'valid' | 'invalid' | 'unsupported';

function checkWitnessV0KeyHash(cache: SighashCache, index: number, keyHash: string, witness: readonly string[]): InputCheck {
  if (witness.length !== 2) return 'invalid';
  const sig = Buffer.from(witness[0]!, 'hex');
  const pubkey = Buffer.from(witness[1]!, 'hex');
  if (hash160(pubkey) !== keyHash) return 'invalid';
  // BIP143: the scriptCode of a P2WPKH input is the P2PKH script of its key hash.
  const scriptCode = `76a914${keyHash}88ac`;
  return ecdsaValid(sig, pubkey, (hashType) => witnessV0Sighash(cache, index, scriptCode, cache.spent[index]!.value, hashType));
}

function checkInput(cache: SighashCache, index: number): InputCheck {
  const input = cache.tx.inputs[index]!;
  const script = cache.spent[index]!.script.toLowerCase();
  let m: RegExpExecArray | null;
  if ((m = P2WPKH.exec(script))) {
    if (input.scriptSig !== '') return 'invalid';
    return checkWitnessV0KeyHash(cache, index, m[1]!, input.witness);
  }
  if ((m = P2TR.exec(script))) {
    if (input.scriptSig !== '') return 'invalid';
    return checkTaprootKeyPath(cache, index, m[1]!, input.witness);
  }
  if ((m = P2PKH.exec(script))) {
    // A witness on a non-witness input is a consensus failure (witness-unexpected).
    if (input.witness.length > 0) return 'invalid';
    const pushes = scriptPushes(input.scriptSig);
    if (!pushes || pushes.length !== 2) return 'invalid';
    const [sig, pubkey] = pushes as [Buffer, Buffer];
    if (hash160(pubkey) !== m[1]) return 'invalid';
    // The scriptCode is the scriptPubKey: a P2PKH script holds no OP_CODESEPARATOR and cannot hold the signature.
    return ecdsaValid(sig, pubkey, (hashType) => legacySighash(cache.tx, index, script, hashType));
  }
  if ((m = P2SH.exec(script))) {
    // BIP16 P2SH wrapping P2WPKH (BIP141): the scriptSig pushes the redeem script 0x0014{key hash}, nothing else.
    const pushes = scriptPushes(input.scriptSig);
    // No redeem script at all: no P2SH spend can pass.
    if (pushes?.length === 0) return 'invalid';
    if (!pushes || pushes.length !== 1) return 'unsupported';
    const redeem = pushes[0]!;
    const inner = P2WPKH.exec(redeem.toString('hex'));
    if (!inner) return 'unsupported';
    if (hash160(redeem) !== m[1]) return 'invalid';
    return checkWitnessV0KeyHash(cache, index, inner[1]!, input.witness);
  }
  return 'unsupported';
}

/** BIP341 key path: one signature (64 bytes, or 65 with a hash type), and maybe an annex (last item, starting 0x50). */
function checkTaprootKeyPath(cache: SighashCache, index: number, outputKey: string, witness: readonly string[]): InputCheck {
  let stack = witness;
  let annex: string | undefined;
  if (stack.length >= 2 && stack[stack.length - 1]!.startsWith('50')) {
    annex = stack[stack.length - 1]!;
    stack = stack.slice(0, -1);
  }
  if (stack.length === 0) return 'invalid';
  // Two or more items: a script-path spend, whose script this check does not run.
  if (stack.length > 1) return 'unsupported';
  const sig = Buffer.from(stack[0]!, 'hex');
  if (sig.length !== 64 && sig.length !== 65) return 'invalid';
  const hashType = sig.length === 65 ? sig[64]! : 0x00;
  // A 65-byte signature must not spell out SIGHASH_DEFAULT (BIP341).
  if (sig.length === 65 && hashType === 0x00) return 'invalid';
  const digest = taprootKeyPathSighash(cache, index, hashType, annex);
  if (!digest) return 'invalid';
  try {
    return schnorr.verify(sig.subarray(0, 64), digest, Buffer.from(outputKey, 'hex')) ? 'valid' : 'invalid';
  } catch {
    return 'invalid';
  }
}

/**
 * Whether every input of `tx` carries a valid signature for the output it
 * spends (`spent[i]` for input i; undefined where the output is unknown).
 * Stops at the first input that fails.
 */
export function checkSignatures(tx: DecodedTx, spent: ReadonlyArray<SpentOutput | undefined>): SignatureVerdict {
  const missing = tx.inputs.findIndex((_, i) => spent[i] === undefined);
  if (missing >= 0) return { ok: false, input: missing, reason: 'missing-prevout' };
  if (tx.inputs.length > MAX_CHECKED_INPUTS) return { ok: false, input: MAX_CHECKED_INPUTS, reason: 'too-costly' };
  const known = spent as readonly SpentOutput[];
  const legacyInputs = known.filter((s) => P2PKH.test(s.script.toLowerCase())).length;
  if (legacyInputs * tx.size > MAX_LEGACY_HASHED_BYTES) return { ok: false, input: 0, reason: 'too-costly' };
  const cache = sighashCache(tx, known);
  for (let i = 0; i < tx.inputs.length; i++) {
    const verdict = checkInput(cache, i);
    if (verdict !== 'valid') return { ok: false, input: i, reason: verdict };
  }
  return { ok: true };
}

/**
 * The first segwit input of `tx` whose signature the portal can check and
 * that fails; undefined when every checkable one verifies. Only witness
 * inputs: a legacy signature is part of the txid, so no other copy of the
 * transaction can share it, and legacy digests cost quadratic hashing
 * (left to the node). Inputs of a kind the portal cannot check, or whose
 * spent output is unknown, are left to the node too.
 */
export function firstInvalidInput(tx: DecodedTx, spent: ReadonlyArray<SpentOutput | undefined>): number | undefined {
  if (tx.inputs.length > MAX_CHECKED_INPUTS || spent.some((s) => s === undefined)) return undefined;
  const known = spent as readonly SpentOutput[];
  const cache = sighashCache(tx, known);
  for (let i = 0; i < tx.inputs.length; i++) {
    if (P2PKH.test(known[i]!.script.toLowerCase())) continue;
    if (checkInput(cache, i) === 'invalid') return i;
  }
  return undefined;
}
