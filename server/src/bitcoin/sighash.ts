import { createHash } from 'node:crypto';
import { writeCompactSize, compactSizeLength } from './compact-size.ts';
import type { DecodedTx } from './tx-codec.ts';

/**
 * The digests a signature commits to, computed over the project's own
 * decoded transactions: the legacy one (Bitcoin Core
 * script/interpreter.cpp SignatureHash, SigVersion::BASE), BIP143's for
 * witness v0 and BIP341's for taproot key-path spends. The signature check
 * (signature-check.ts) verifies signatures against them.
 */

/** What an input spends: its value in satoshis and its scriptPubKey (hex). */
export interface SpentOutput {
  value: number;
  script: string;
}

export const SIGHASH_ALL = 0x01;
export const SIGHASH_NONE = 0x02;
export const SIGHASH_SINGLE = 0x03;
export const SIGHASH_ANYONECANPAY = 0x80;
/** BIP341: a 64-byte signature means SIGHASH_DEFAULT, which signs as ALL. */
export const SIGHASH_DEFAULT = 0x00;

const sha256 = (...parts: Buffer[]): Buffer => {
  const h = createHash('sha256');
  for (const part of parts) h.update(part);
  return h.digest();
};
const sha256d = (...parts: Buffer[]): Buffer => sha256(sha256(...parts));

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

function int64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(BigInt(n));
  return b;
}

function compactSize(n: number): Buffer {
  const out = Buffer.alloc(compactSizeLength(n));
  writeCompactSize(out, 0, n);
  return out;
}

/** A script or witness item with its CompactSize length in front. */
function varBytes(hex: string): Buffer {
  const bytes = Buffer.from(hex, 'hex');
  const out = Buffer.alloc(compactSizeLength(bytes.length) + bytes.length);
  bytes.copy(out, writeCompactSize(out, 0, bytes.length));
  return out;
}

/** An outpoint as serialized: the txid in internal (reversed) byte order, then the output index. */
function outpoint(input: { txid: string; vout: number }): Buffer {
  return Buffer.concat([Buffer.from(input.txid, 'hex').reverse(), uint32(input.vout)]);
}

function serializedOutput(output: { value: number; scriptPubKey: string }): Buffer {
  return Buffer.concat([int64(output.value), varBytes(output.scriptPubKey)]);
}

const OP_CODESEPARATOR = 0xab;
const EMPTY_SCRIPT = Buffer.from([0]);

/**
 * The next operation from `pc` and where it ends (script/script.cpp
 * GetScriptOp); where the script cannot be read further, `stop` is where the
 * failed read left Core's iterator.
 */
function nextOp(script: Buffer, pc: number): { end: number; opcode: number } | { stop: number } {
  if (pc >= script.length) return { stop: pc };
  const opcode = script[pc++]!;
  let size = 0;
  if (opcode < 0x4c) size = opcode;
  else if (opcode <= 0x4e) {
    const width = opcode === 0x4c ? 1 : opcode === 0x4d ? 2 : 4;
    if (script.length - pc < width) return { stop: pc };
    size = width === 1 ? script.readUInt8(pc) : width === 2 ? script.readUInt16LE(pc) : script.readUInt32LE(pc);
    pc += width;
  }
  if (script.length - pc < size) return { stop: pc };
  return { end: pc + size, opcode };
}

/**
 * The scriptCode as the legacy digest serializes it: OP_CODESEPARATORs left
 * out (interpreter.cpp CTransactionSignatureSerializer::SerializeScriptCode).
 * Core's quirk on an unreadable script is kept: the length prefix counts
 * every byte but the separators, while the bytes stop where reading stopped.
 */
function serializedScriptCode(hex: string): Buffer {
  const script = Buffer.from(hex, 'hex');
  const kept: Buffer[] = [];
  let separators = 0;
  let begin = 0;
  let pc = 0;
  for (;;) {
    const op = nextOp(script, pc);
    if ('stop' in op) {
      pc = op.stop;
      break;
    }
    if (op.opcode === OP_CODESEPARATOR) {
      separators++;
      kept.push(script.subarray(begin, op.end - 1));
      begin = op.end;
    }
    pc = op.end;
  }
  if (begin !== script.length) kept.push(script.subarray(begin, pc));
  const declared = script.length - separators;
  const prefix = Buffer.alloc(compactSizeLength(declared));
  writeCompactSize(prefix, 0, declared);
  return Buffer.concat([prefix, ...kept]);
}

/**
 * The legacy digest (script/interpreter.cpp, CTransactionSignatureSerializer).
 * `scriptCode` is the script being executed with OP_CODESEPARATORs and the
 * signature already removed; for P2PKH that is the scriptPubKey itself.
 * SIGHASH_SINGLE without a matching output signs the number one: Core's
 * historical behaviour, still consensus.
 */
export function legacySighash(tx: DecodedTx, index: number, scriptCode: string, hashType: number): Buffer {
  const base = hashType & 0x1f;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  if (base === SIGHASH_SINGLE && index >= tx.outputs.length) {
    const one = Buffer.alloc(32);
    one[0] = 1;
    return one;
  }
  const signed = serializedScriptCode(scriptCode);
  const inputs = anyoneCanPay ? [index] : tx.inputs.map((_, i) => i);
  const outputs = base === SIGHASH_NONE
    ? []
    : base === SIGHASH_SINGLE
      ? tx.outputs.slice(0, index + 1).map((output, i) => (i === index ? serializedOutput(output) : serializedOutput({ value: -1, scriptPubKey: '' })))
      : tx.outputs.map(serializedOutput);
  const parts: Buffer[] = [uint32(tx.version), compactSize(inputs.length)];
  for (const i of inputs) {
    const input = tx.inputs[i]!;
    const zeroSequence = i !== index && (base === SIGHASH_NONE || base === SIGHASH_SINGLE);
    parts.push(outpoint(input), i === index ? signed : EMPTY_SCRIPT, uint32(zeroSequence ? 0 : input.sequence));
  }
  parts.push(compactSize(outputs.length), ...outputs, uint32(tx.locktime));
  const serialized = Buffer.concat(parts);
  return sha256d(serialized, uint32(hashType));
}

/**
 * The parts of a witness digest every input of a transaction shares, hashed
 * once: BIP143 and BIP341 were designed so that signing all inputs costs
 * linear time, and this keeps it so.
 */
export interface SighashCache {
  tx: DecodedTx;
  spent: readonly SpentOutput[];
  prevouts: Buffer;
  sequences: Buffer;
  outputs: Buffer;
  amounts: Buffer;
  scriptPubKeys: Buffer;
}

export function sighashCache(tx: DecodedTx, spent: readonly SpentOutput[]): SighashCache {
  return {
    tx,
    spent,
    prevouts: Buffer.concat(tx.inputs.map(outpoint)),
    sequences: Buffer.concat(tx.inputs.map((input) => uint32(input.sequence))),
    outputs: Buffer.concat(tx.outputs.map(serializedOutput)),
    amounts: Buffer.concat(spent.map((s) => int64(s.value))),
    scriptPubKeys: Buffer.concat(spent.map((s) => varBytes(s.script))),
  };
}

const ZERO32 = Buffer.alloc(32);

/** BIP143: the digest of a witness v0 input spending `amount` satoshis, signing `scriptCode` (hex, without its length). */
export function witnessV0Sighash(cache: SighashCache, index: number, scriptCode: string, amount: number, hashType: number): Buffer {
  const { tx } = cache;
  const input = tx.inputs[index]!;
  const base = hashType & 0x1f;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const hashPrevouts = anyoneCanPay ? ZERO32 : sha256d(cache.prevouts);
  const hashSequence = anyoneCanPay || base === SIGHASH_SINGLE || base === SIGHASH_NONE ? ZERO32 : sha256d(cache.sequences);
  const hashOutputs = base !== SIGHASH_SINGLE && base !== SIGHASH_NONE
    ? sha256d(cache.outputs)
    : base === SIGHASH_SINGLE && index < tx.outputs.length
      ? sha256d(serializedOutput(tx.outputs[index]!))
      : ZERO32;
  return sha256d(
    uint32(tx.version),
    hashPrevouts,
    hashSequence,
    outpoint(input),
    varBytes(scriptCode),
    int64(amount),
    uint32(input.sequence),
    hashOutputs,
    uint32(tx.locktime),
    uint32(hashType),
  );
}

/** BIP340 tagged hash: sha256(sha256(tag) || sha256(tag) || data). */
export function taggedHash(tag: string, ...data: Buffer[]): Buffer {
  const tagHash = sha256(Buffer.from(tag, 'utf8'));
  return sha256(tagHash, tagHash, ...data);
}

/** The hash types BIP341 allows; any other makes the signature invalid. */
export const TAPROOT_HASH_TYPES: ReadonlySet<number> = new Set([0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83]);

/**
 * BIP341: the digest of a key-path spend (ext_flag 0), with the annex when
 * the witness has one. Undefined when the hash type is not allowed, or when
 * SIGHASH_SINGLE has no output at this index: such a signature is invalid.
 */
export function taprootKeyPathSighash(cache: SighashCache, index: number, hashType: number, annex?: string): Buffer | undefined {
  const { tx, spent } = cache;
  if (!TAPROOT_HASH_TYPES.has(hashType)) return undefined;
  const outputType = hashType === SIGHASH_DEFAULT ? SIGHASH_ALL : hashType & 0x03;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  if (outputType === SIGHASH_SINGLE && index >= tx.outputs.length) return undefined;
  const input = tx.inputs[index]!;
  const parts: Buffer[] = [Buffer.from([0x00, hashType]), uint32(tx.version), uint32(tx.locktime)];
  if (!anyoneCanPay) parts.push(sha256(cache.prevouts), sha256(cache.amounts), sha256(cache.scriptPubKeys), sha256(cache.sequences));
  if (outputType !== SIGHASH_NONE && outputType !== SIGHASH_SINGLE) parts.push(sha256(cache.outputs));
  parts.push(Buffer.from([annex === undefined ? 0 : 1]));
  if (anyoneCanPay) parts.push(outpoint(input), int64(spent[index]!.value), varBytes(spent[index]!.script), uint32(input.sequence));
  else parts.push(uint32(index));
  if (annex !== undefined) parts.push(sha256(varBytes(annex)));
  if (outputType === SIGHASH_SINGLE) parts.push(sha256(serializedOutput(tx.outputs[index]!)));
  return taggedHash('TapSighash', ...parts);
}
