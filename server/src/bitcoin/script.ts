/**
 * Script parsing as Bitcoin Core does it (script/script.cpp), shared by the
 * sigop count (sigops.ts) and the standardness rules (standardness/): one
 * reading of a script's elements, so both agree on where a malformed push
 * ends a script.
 */

/** script/script.h MAX_PUBKEYS_PER_MULTISIG: what an inaccurately counted CHECKMULTISIG costs. */
const MAX_PUBKEYS_PER_MULTISIG = 20;
/** script/script.h MAX_SCRIPT_ELEMENT_SIZE: the largest push a script may execute. */
export const MAX_SCRIPT_ELEMENT_SIZE = 520;

// Opcodes (script/script.h, enum opcodetype).
export const OP_0 = 0x00;
const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
const OP_PUSHDATA4 = 0x4e;
export const OP_1NEGATE = 0x4f;
export const OP_1 = 0x51;
export const OP_16 = 0x60;
export const OP_RETURN = 0x6a;
export const OP_EQUAL = 0x87;
export const OP_HASH160 = 0xa9;
export const OP_CHECKSIG = 0xac;
const OP_CHECKSIGVERIFY = 0xad;
export const OP_CHECKMULTISIG = 0xae;
const OP_CHECKMULTISIGVERIFY = 0xaf;
/** What Core's GetScriptOp leaves in opcodeRet when it fails; never a real opcode here. */
const OP_INVALIDOPCODE = 0xff;

/** BIP141 (script/interpreter.h): program sizes of P2WPKH and P2WSH; BIP341: of P2TR. */
export const WITNESS_V0_KEYHASH_SIZE = 20;
export const WITNESS_V0_SCRIPTHASH_SIZE = 32;
export const WITNESS_V1_TAPROOT_SIZE = 32;

/** One parsed script element. `data` is empty for non-push opcodes, as in Core. */
export interface ScriptOp {
  opcode: number;
  data: Buffer;
}

const EMPTY: Buffer = Buffer.alloc(0);

/**
 * script/script.cpp GetScriptOp: reads the element at `pos`, or returns
 * undefined where Core's GetOp returns false (a push running past the end of
 * the script, or a truncated PUSHDATA length). `next` is the position after it.
 */
export function readOp(script: Buffer, pos: number): { op: ScriptOp; next: number } | undefined {
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

/** Every element of a script, or undefined when one is malformed (GetOp fails). */
export function scriptOps(script: Buffer, from = 0): ScriptOp[] | undefined {
  const ops: ScriptOp[] = [];
  let pos = from;
  while (pos < script.length) {
    const read = readOp(script, pos);
    if (read === undefined) return undefined;
    ops.push(read.op);
    pos = read.next;
  }
  return ops;
}

/** script/script.cpp CScript::IsPushOnly: every element parses and is at most OP_16 (OP_RESERVED included, as in Core). */
export function isPushOnly(script: Buffer, from = 0): boolean {
  return scriptOps(script, from)?.every((op) => op.opcode <= OP_16) ?? false;
}

/**
 * script/script.cpp CScript::GetSigOpCount(bool fAccurate). CHECKSIG(VERIFY)
 * counts 1; CHECKMULTISIG(VERIFY) counts the OP_1..OP_16 just before it when
 * `accurate`, else MAX_PUBKEYS_PER_MULTISIG (20). A malformed element ends the
 * count there: Core breaks out of the loop, keeping what it has counted.
 */
export function scriptSigOpCount(script: Buffer, accurate: boolean): number {
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
export function isPayToScriptHash(script: Buffer): boolean {
  return script.length === 23 && script[0] === OP_HASH160 && script[1] === 0x14 && script[22] === OP_EQUAL;
}

/**
 * The data of the last element of a push-only scriptSig (BIP16's serialized
 * redeemScript), or undefined if the scriptSig is not push-only or is
 * malformed. As in Core, a final non-data push (OP_0, OP_1..OP_16, OP_1NEGATE,
 * OP_RESERVED) leaves it empty. CScript::IsPushOnly and the scan in
 * GetSigOpCount(scriptSig) share this definition: every opcode <= OP_16.
 */
export function lastPush(scriptSig: Buffer): Buffer | undefined {
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

/** script/script.cpp CScript::IsWitnessProgram (BIP141): a version opcode then one push of 2..40 bytes, 4..42 bytes in all. */
export function witnessProgram(script: Buffer): { version: number; program: Buffer } | undefined {
  if (script.length < 4 || script.length > 42) return undefined;
  const first = script[0]!;
  if (first !== OP_0 && (first < OP_1 || first > OP_16)) return undefined;
  if (script[1]! + 2 !== script.length) return undefined;
  return { version: first === OP_0 ? 0 : first - OP_1 + 1, program: script.subarray(2) };
}
