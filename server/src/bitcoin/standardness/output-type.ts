import { isPayToScriptHash, isPushOnly, OP_0, OP_1, OP_16, OP_CHECKMULTISIG, OP_CHECKSIG, OP_RETURN, readOp, witnessProgram, WITNESS_V0_KEYHASH_SIZE, WITNESS_V0_SCRIPTHASH_SIZE, WITNESS_V1_TAPROOT_SIZE } from '../script.ts';

/**
 * What kind of output a scriptPubKey is, as Bitcoin Core's `Solver`
 * (script/solver.cpp) classifies it: the classification every standardness
 * rule (policy/policy.cpp) starts from. Checked in Core's order, so a script
 * that matches two shapes gets Core's answer.
 */

export type OutputType =
  | { type: 'nonstandard' }
  | { type: 'pubkey' }
  | { type: 'pubkeyhash' }
  | { type: 'scripthash' }
  | { type: 'multisig'; required: number; keys: number }
  | { type: 'nulldata' }
  | { type: 'witness_v0_keyhash' }
  | { type: 'witness_v0_scripthash' }
  | { type: 'witness_v1_taproot' }
  | { type: 'anchor' }
  | { type: 'witness_unknown' };

/** script/script.h MAX_PUBKEYS_PER_MULTISIG: the most keys MatchMultisig reads. */
const MAX_PUBKEYS_PER_MULTISIG = 20;
const OP_DUP = 0x76;
const OP_HASH160 = 0xa9;
const OP_EQUALVERIFY = 0x88;

export function outputType(script: Buffer): OutputType {
  if (isPayToScriptHash(script)) return { type: 'scripthash' };
  const witness = witnessProgram(script);
  if (witness) {
    if (witness.version === 0 && witness.program.length === WITNESS_V0_KEYHASH_SIZE) return { type: 'witness_v0_keyhash' };
    if (witness.version === 0 && witness.program.length === WITNESS_V0_SCRIPTHASH_SIZE) return { type: 'witness_v0_scripthash' };
    if (witness.version === 1 && witness.program.length === WITNESS_V1_TAPROOT_SIZE) return { type: 'witness_v1_taproot' };
    if (isPayToAnchor(script)) return { type: 'anchor' };
    // A v0 program of any other length is no output at all (BIP141 makes it unspendable).
    return witness.version !== 0 ? { type: 'witness_unknown' } : { type: 'nonstandard' };
  }
  // Provably unspendable data: OP_RETURN then pushes only.
  if (script.length >= 1 && script[0] === OP_RETURN && isPushOnly(script, 1)) return { type: 'nulldata' };
  if (isPayToPubkey(script)) return { type: 'pubkey' };
  if (script.length === 25 && script[0] === OP_DUP && script[1] === OP_HASH160 && script[2] === 20 && script[23] === OP_EQUALVERIFY && script[24] === OP_CHECKSIG) return { type: 'pubkeyhash' };
  return matchMultisig(script) ?? { type: 'nonstandard' };
}

/** script/script.cpp CScript::IsPayToAnchor (BIP 433): OP_1 <0x4e73>. */
export function isPayToAnchor(script: Buffer): boolean {
  return script.length === 4 && script[0] === OP_1 && script[1] === 0x02 && script[2] === 0x4e && script[3] === 0x73;
}

/** pubkey.h CPubKey::ValidSize: a length that matches the key's header byte (33 for 02/03, 65 for 04/06/07). */
function validPubkeySize(key: Buffer): boolean {
  if (key.length === 0) return false;
  const header = key[0]!;
  if (header === 0x02 || header === 0x03) return key.length === 33;
  if (header === 0x04 || header === 0x06 || header === 0x07) return key.length === 65;
  return false;
}

/** solver.cpp MatchPayToPubkey: one push of a validly sized key, then OP_CHECKSIG. */
function isPayToPubkey(script: Buffer): boolean {
  for (const size of [65, 33]) {
    if (script.length === size + 2 && script[0] === size && script[script.length - 1] === OP_CHECKSIG && validPubkeySize(script.subarray(1, size + 1))) return true;
  }
  return false;
}

/**
 * solver.cpp MatchMultisig: <m> <key>... <n> OP_CHECKMULTISIG, each count a
 * small number in range (GetScriptNumber: OP_1..OP_16 or a minimal push),
 * exactly n validly sized keys, nothing after.
 */
function matchMultisig(script: Buffer): OutputType | undefined {
  if (script.length < 1 || script[script.length - 1] !== OP_CHECKMULTISIG) return undefined;
  let read = readOp(script, 0);
  if (!read) return undefined;
  const required = scriptNumber(read.op.opcode, read.op.data, 1, MAX_PUBKEYS_PER_MULTISIG);
  if (required === undefined) return undefined;
  let keys = 0;
  let pos = read.next;
  for (;;) {
    read = readOp(script, pos);
    if (!read) return undefined;
    pos = read.next;
    if (!validPubkeySize(read.op.data)) break;
    keys += 1;
  }
  const count = scriptNumber(read.op.opcode, read.op.data, required, MAX_PUBKEYS_PER_MULTISIG);
  if (count === undefined || count !== keys) return undefined;
  return pos + 1 === script.length ? { type: 'multisig', required, keys } : undefined;
}

/** solver.cpp GetScriptNumber: OP_0..OP_16, or a minimally pushed number of at most 4 bytes, within [min, max]. */
function scriptNumber(opcode: number, data: Buffer, min: number, max: number): number | undefined {
  let n: number;
  if (opcode === OP_0) n = 0;
  else if (opcode >= OP_1 && opcode <= OP_16) n = opcode - OP_1 + 1;
  else if (opcode <= 0x4e && data.length >= 1 && data.length <= 4 && opcode === data.length && isMinimalNumber(data)) n = decodeScriptNum(data);
  else return undefined;
  return n >= min && n <= max ? n : undefined;
}

/** A pushed number that CScriptNum takes with fRequireMinimal and that no OP_n could have pushed (CheckMinimalPush). */
function isMinimalNumber(data: Buffer): boolean {
  if (data.length === 1 && (data[0]! <= 16 || data[0] === 0x81)) return false;
  const last = data[data.length - 1]!;
  return (last & 0x7f) !== 0 || (data.length > 1 && (data[data.length - 2]! & 0x80) !== 0);
}

function decodeScriptNum(data: Buffer): number {
  let n = 0;
  for (let i = 0; i < data.length; i++) n |= data[i]! << (8 * i);
  const last = data[data.length - 1]!;
  if (last & 0x80) return -(n & ~(0x80 << (8 * (data.length - 1))));
  return n;
}
