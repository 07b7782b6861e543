import { WITNESS_SCALE_FACTOR, type DecodedTx } from './tx-codec.ts';

/**
 * Signature-operation cost, exactly as Bitcoin Core computes it for mempool
 * acceptance and fee rates; the sigop-adjusted virtual size made from it is
 * the mempool engine's (mempool-engine/src/bitcoin/virtual-size.ts), which
 * reads the node's mempool in the same unit.
 *
 * Why: the node does not price a transaction by ceil(weight / 4) alone. Its
 * mempool entry, `testmempoolaccept`, `getmempoolentry` and block templates
 * all use `GetVirtualTransactionSize(weight, sigop_cost, -bytespersigop)`
 * (policy/policy.cpp), which charges `bytes_per_sigop` virtual bytes per
 * sigop when that exceeds the weight. Transactions with bare multisig outputs
 * (Stamps, Counterparty) carry 80 sigop cost per output and are routinely
 * priced by sigops, not weight; quoting ceil(weight / 4) to their senders
 * would overstate their fee rate several times over.
 *
 * The sigop cost is Core's `GetTransactionSigOpCost` (consensus/tx_verify.cpp)
 * with the flags the mempool passes (STANDARD_SCRIPT_VERIFY_FLAGS, which
 * include SCRIPT_VERIFY_P2SH and SCRIPT_VERIFY_WITNESS):
 *
 *   legacy  = GetLegacySigOpCount(tx)            × WITNESS_SCALE_FACTOR
 *   p2sh    = GetP2SHSigOpCount(tx, inputs)      × WITNESS_SCALE_FACTOR
 *   witness = Σ CountWitnessSigOps(scriptSig, prevout scriptPubKey, witness)
 *
 * and a coinbase only has the legacy part.
 */

/** script/script.h MAX_PUBKEYS_PER_MULTISIG: what an inaccurately counted CHECKMULTISIG costs. */
const MAX_PUBKEYS_PER_MULTISIG = 20;

// Opcodes (script/script.h, enum opcodetype).
const OP_0 = 0x00;
const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
const OP_PUSHDATA4 = 0x4e;
const OP_1 = 0x51;
const OP_16 = 0x60;
const OP_EQUAL = 0x87;
const OP_HASH160 = 0xa9;
const OP_CHECKSIG = 0xac;
const OP_CHECKSIGVERIFY = 0xad;
const OP_CHECKMULTISIG = 0xae;
const OP_CHECKMULTISIGVERIFY = 0xaf;
/** What Core's GetScriptOp leaves in opcodeRet when it fails; never a real opcode here. */
const OP_INVALIDOPCODE = 0xff;

/** BIP141 (script/interpreter.h): program sizes of P2WPKH and P2WSH. */
const WITNESS_V0_KEYHASH_SIZE = 20;
const WITNESS_V0_SCRIPTHASH_SIZE = 32;

/** The parts of a transaction's sigop cost, each already in cost units (legacy and P2SH × 4). */
export interface SigOpCostParts {
  /** GetLegacySigOpCount × 4: every scriptSig and scriptPubKey, counted inaccurately. */
  legacy: number;
  /** GetP2SHSigOpCount × 4: redeemScripts of inputs spending P2SH, counted accurately. */
  p2sh: number;
  /** Σ CountWitnessSigOps: P2WPKH 1, P2WSH the witness script counted accurately (also P2SH-wrapped). */
  witness: number;
  /** legacy + p2sh + witness: what GetTransactionSigOpCost returns. */
  total: number;
  /**
   * False when some input's prevout script was not given: that input's P2SH
   * and witness sigops (which only the prevout reveals) are missing, so
   * `total` is a lower bound of the node's figure.
   */
  complete: boolean;
}

/**
 * Bitcoin Core's GetTransactionSigOpCost (consensus/tx_verify.cpp) with
 * SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS.
 *
 * `prevoutScripts[i]` is the scriptPubKey (hex) of the output input i spends,
 * `undefined` if unknown; an unknown prevout adds nothing beyond its legacy
 * scriptSig count, so the result is then a lower bound (see
 * `transactionSigOpCostParts(...).complete`). Ignored for a coinbase.
 */
export function transactionSigOpCost(tx: DecodedTx, prevoutScripts: readonly (string | undefined)[]): number {
  return transactionSigOpCostParts(tx, prevoutScripts).total;
}

/** transactionSigOpCost, broken down by Core's three counts. */
export function transactionSigOpCostParts(tx: DecodedTx, prevoutScripts: readonly (string | undefined)[]): SigOpCostParts {
  // GetLegacySigOpCount (consensus/tx_verify.cpp): scriptSig.GetSigOpCount(false)
  // for every input, scriptPubKey.GetSigOpCount(false) for every output.
  let legacy = 0;
  const scriptSigs = tx.inputs.map((input) => Buffer.from(input.scriptSig, 'hex'));
  for (const scriptSig of scriptSigs) legacy += scriptSigOpCount(scriptSig, false);
  for (const output of tx.outputs) legacy += scriptSigOpCount(Buffer.from(output.scriptPubKey, 'hex'), false);
  legacy *= WITNESS_SCALE_FACTOR;

  // GetTransactionSigOpCost returns the legacy count alone for a coinbase.
  if (isCoinbase(tx)) return { legacy, p2sh: 0, witness: 0, total: legacy, complete: true };

  if (prevoutScripts.length !== tx.inputs.length) {
    throw new RangeError(`Expected ${tx.inputs.length} prevout scripts (one per input, undefined if unknown), got ${prevoutScripts.length}`);
  }
  let p2sh = 0;
  let witness = 0;
  let complete = true;
  tx.inputs.forEach((input, i) => {
    const prevoutHex = prevoutScripts[i];
    if (prevoutHex === undefined) {
      complete = false;
      return;
    }
    const prevout = Buffer.from(prevoutHex, 'hex');
    const scriptSig = scriptSigs[i]!;
    // GetP2SHSigOpCount (consensus/tx_verify.cpp) → CScript::GetSigOpCount(scriptSig).
    if (isPayToScriptHash(prevout)) p2sh += p2shSigOpCount(scriptSig);
    witness += countWitnessSigOps(scriptSig, prevout, input.witness);
  });
  p2sh *= WITNESS_SCALE_FACTOR;
  return { legacy, p2sh, witness, total: legacy + p2sh + witness, complete };
}

/** CTransaction::IsCoinBase: exactly one input, spending the null outpoint (all-zero hash, index 0xffffffff). */
function isCoinbase(tx: DecodedTx): boolean {
  const only = tx.inputs.length === 1 ? tx.inputs[0] : undefined;
  return only !== undefined && only.vout === 0xffff_ffff && /^0{64}$/.test(only.txid);
}

/** One parsed script element. `data` is empty for non-push opcodes, as in Core. */
interface ScriptOp {
  opcode: number;
  data: Buffer;
}

const EMPTY: Buffer = Buffer.alloc(0);

/**
 * script/script.cpp GetScriptOp: reads the element at `pos`, or returns
 * undefined where Core's GetOp returns false (a push running past the end of
 * the script, or a truncated PUSHDATA length). `next` is the position after it.
 */
function readOp(script: Buffer, pos: number): { op: ScriptOp; next: number } | undefined {
  if (pos >= script.length) return undefined;
  const opcode = script[pos++]!;
  if (opcode > OP_PUSHDATA4) return { op: { opcode, data: EMPTY }, next: pos };
  let size: number;
  if (opcode < OP_PUSHDATA1) {
    size = opcode;
  } else if (opcode === OP_PUSHDATA1) {
    if (script.length - pos < 1) return undefined;
    size = script[pos]!;
    pos += 1;
  } else if (opcode === OP_PUSHDATA2) {
    if (script.length - pos < 2) return undefined;
    size = script.readUInt16LE(pos);
    pos += 2;
  } else {
    if (script.length - pos < 4) return undefined;
    size = script.readUInt32LE(pos);
    pos += 4;
  }
  if (script.length - pos < size) return undefined;
  return { op: { opcode, data: script.subarray(pos, pos + size) }, next: pos + size };
}

/**
 * script/script.cpp CScript::GetSigOpCount(bool fAccurate). CHECKSIG(VERIFY)
 * counts 1; CHECKMULTISIG(VERIFY) counts the OP_1..OP_16 just before it when
 * `accurate`, else MAX_PUBKEYS_PER_MULTISIG (20). A malformed element ends the
 * count there: Core breaks out of the loop, keeping what it has counted.
 */
function scriptSigOpCount(script: Buffer, accurate: boolean): number {
  let n = 0;
  let lastOpcode = OP_INVALIDOPCODE;
  let pos = 0;
  while (pos < script.length) {
    const read = readOp(script, pos);
    if (read === undefined) break;
    pos = read.next;
    const { opcode } = read.op;
    if (opcode === OP_CHECKSIG || opcode === OP_CHECKSIGVERIFY) {
      n += 1;
    } else if (opcode === OP_CHECKMULTISIG || opcode === OP_CHECKMULTISIGVERIFY) {
      // DecodeOP_N: OP_1..OP_16 are 0x51..0x60.
      n += accurate && lastOpcode >= OP_1 && lastOpcode <= OP_16 ? lastOpcode - OP_1 + 1 : MAX_PUBKEYS_PER_MULTISIG;
    }
    lastOpcode = opcode;
  }
  return n;
}

/** script/script.cpp CScript::IsPayToScriptHash (BIP16): OP_HASH160 <20 bytes> OP_EQUAL, exactly 23 bytes. */
function isPayToScriptHash(script: Buffer): boolean {
  return script.length === 23 && script[0] === OP_HASH160 && script[1] === 0x14 && script[22] === OP_EQUAL;
}

/**
 * The data of the last element of a push-only scriptSig (BIP16's serialized
 * redeemScript), or undefined if the scriptSig is not push-only or is
 * malformed. As in Core, a final non-data push (OP_0, OP_1..OP_16, OP_1NEGATE,
 * OP_RESERVED) leaves it empty. CScript::IsPushOnly and the scan in
 * GetSigOpCount(scriptSig) share this definition: every opcode <= OP_16.
 */
function lastPush(scriptSig: Buffer): Buffer | undefined {
  let data: Buffer = EMPTY;
  let pos = 0;
  while (pos < scriptSig.length) {
    const read = readOp(scriptSig, pos);
    if (read === undefined || read.op.opcode > OP_16) return undefined;
    data = read.op.data;
    pos = read.next;
  }
  return data;
}

/**
 * script/script.cpp CScript::GetSigOpCount(const CScript& scriptSig) for a
 * P2SH scriptPubKey: the accurate count of the redeemScript, 0 if the
 * scriptSig is not push-only or is malformed.
 */
function p2shSigOpCount(scriptSig: Buffer): number {
  const redeemScript = lastPush(scriptSig);
  return redeemScript === undefined ? 0 : scriptSigOpCount(redeemScript, true);
}

/** script/script.cpp CScript::IsWitnessProgram (BIP141): a version opcode then one push of 2..40 bytes, 4..42 bytes in all. */
function witnessProgram(script: Buffer): { version: number; program: Buffer } | undefined {
  if (script.length < 4 || script.length > 42) return undefined;
  const first = script[0]!;
  if (first !== OP_0 && (first < OP_1 || first > OP_16)) return undefined;
  if (script[1]! + 2 !== script.length) return undefined;
  return { version: first === OP_0 ? 0 : first - OP_1 + 1, program: script.subarray(2) };
}

/**
 * script/interpreter.cpp WitnessSigOps: P2WPKH counts 1, P2WSH the accurate
 * count of its witness script (the last witness item; 0 with an empty
 * witness). Taproot (BIP342 uses a per-input budget instead) and unknown
 * versions count 0.
 */
function witnessSigOps(version: number, program: Buffer, witness: readonly string[]): number {
  if (version !== 0) return 0;
  if (program.length === WITNESS_V0_KEYHASH_SIZE) return 1;
  if (program.length === WITNESS_V0_SCRIPTHASH_SIZE && witness.length > 0) {
    return scriptSigOpCount(Buffer.from(witness[witness.length - 1]!, 'hex'), true);
  }
  return 0;
}

/**
 * script/interpreter.cpp CountWitnessSigOps with SCRIPT_VERIFY_WITNESS: a
 * native witness program, or a P2SH whose push-only scriptSig's last push is
 * one (BIP141 P2SH-wrapped segwit).
 */
function countWitnessSigOps(scriptSig: Buffer, prevout: Buffer, witness: readonly string[]): number {
  const native = witnessProgram(prevout);
  if (native !== undefined) return witnessSigOps(native.version, native.program, witness);
  if (isPayToScriptHash(prevout)) {
    const redeemScript = lastPush(scriptSig);
    const wrapped = redeemScript === undefined ? undefined : witnessProgram(redeemScript);
    if (wrapped !== undefined) return witnessSigOps(wrapped.version, wrapped.program, witness);
  }
  return 0;
}
