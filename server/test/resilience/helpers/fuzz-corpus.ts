import fc from 'fast-check';
import { MAX_BLOCK_WEIGHT, MAX_MONEY, encodeTx, type EncodableTx } from '../../../src/bitcoin/tx-codec.ts';

/**
 * Inputs for the transaction decoder's fuzz tests (decoder-fuzz.test.ts) and
 * its benchmark (bench/decoder-fuzz.ts): valid transactions built
 * structurally, with every length and count near a CompactSize boundary
 * (0xfc/0xfd, 0xffff/0x10000), and the ways such a transaction can be broken.
 * Everything is generated from a fixed seed, so a failure replays exactly.
 */

export const FUZZ_SEED = 0x5eed_2026;

const bytesHex = (minLength: number, maxLength: number) => fc.uint8Array({ minLength, maxLength }).map((b) => Buffer.from(b).toString('hex'));

/**
 * `length` bytes from a seed byte: generating long byte strings one
 * random byte at a time would take most of the run, and what is tested at
 * these lengths is the length prefix, not the content.
 */
const longBytesHex = (length: number) =>
  fc.integer({ min: 0, max: 255 }).map((seed) => {
    const b = Buffer.alloc(length);
    for (let i = 0; i < length; i++) b[i] = (seed + i * 151) & 0xff;
    return b.toString('hex');
  });

/** Lengths where the CompactSize prefix changes width (1 -> 3 bytes), and around them. */
const BOUNDARY_LENGTHS = [0, 1, 0xfc, 0xfd, 0xfe, 0xff, 0x100] as const;
/** And where it widens again (3 -> 5 bytes): witness items only, which weigh a quarter, so a transaction stays under the weight limit. */
const WIDE_LENGTHS = [0xffff, 0x1_0000] as const;

const u32 = fc.oneof(fc.constantFrom(0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff), fc.integer({ min: 0, max: 0xffff_ffff }));

/** Any 32-bit version, given signed or unsigned as the encoder allows. */
const version = fc.oneof(
  fc.constantFrom(1, 2, 3, 0, -1, -0x8000_0000, 0x7fff_ffff, 0xffff_ffff),
  fc.integer({ min: -0x8000_0000, max: 0xffff_ffff }),
);
const locktime = fc.oneof(fc.constantFrom(0, 499_999_999, 500_000_000, 0xffff_ffff), u32);
const value = fc.oneof(fc.constantFrom(0, 1, 546, MAX_MONEY - 1, MAX_MONEY), fc.integer({ min: 0, max: MAX_MONEY }));

/** Mostly short scripts; sometimes exactly at a CompactSize boundary. */
const script = fc.oneof(
  { weight: 8, arbitrary: bytesHex(0, 40) },
  { weight: 1, arbitrary: fc.constantFrom(...BOUNDARY_LENGTHS).chain(longBytesHex) },
);
const witnessItem = fc.oneof(
  { weight: 12, arbitrary: bytesHex(0, 80) },
  { weight: 2, arbitrary: fc.constantFrom(...BOUNDARY_LENGTHS).chain(longBytesHex) },
  { weight: 1, arbitrary: fc.constantFrom(...WIDE_LENGTHS).chain(longBytesHex) },
);
const txid = bytesHex(32, 32);

const input = (stack: fc.Arbitrary<string[]>) => fc.record({ txid, vout: u32, scriptSig: script, sequence: u32, witness: stack });
const output = fc.record({ value, scriptPubKey: script });

/** 0-4 elements mostly; sometimes 0xfc or 0xfd, where the count's own CompactSize widens. */
const several = <T>(arb: fc.Arbitrary<T>, minLength: number) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.array(arb, { minLength, maxLength: 4 }) },
    { weight: 1, arbitrary: fc.constantFrom(0xfc, 0xfd).chain((n) => fc.array(arb, { minLength: n, maxLength: n })) },
  );

/** Witness stacks, empty or not: segwit needs at least one non-empty one, placed anywhere. */
const witnessStack = fc.oneof({ weight: 3, arbitrary: fc.array(witnessItem, { maxLength: 4 }) }, { weight: 1, arbitrary: several(fc.constant(''), 0) });

/**
 * Legacy transactions have at least one input: with none, the next bytes
 * 0x00 0x01.. read as the BIP144 marker (the format's own ambiguity); the one
 * legacy transaction without inputs, 0x00 0x00 (no inputs, no outputs), is a
 * case of its own.
 */
const legacyTx: fc.Arbitrary<EncodableTx> = fc.record({
  version,
  locktime,
  inputs: several(input(fc.constant([])), 1),
  outputs: several(output, 0),
});

const segwitTx: fc.Arbitrary<EncodableTx> = fc
  .tuple(legacyTx, input(fc.array(witnessItem, { minLength: 1, maxLength: 4 })), fc.array(input(witnessStack), { maxLength: 4 }), fc.nat())
  .map(([tx, withWitness, others, at]) => {
    const inputs = [...others];
    inputs.splice(at % (others.length + 1), 0, withWitness);
    return { ...tx, inputs };
  });

const emptyTx: fc.Arbitrary<EncodableTx> = fc.record({ version, locktime, inputs: fc.constant([]), outputs: fc.constant([]) });

/** A valid transaction (legacy or BIP144), as fields to encode. */
export const validTx: fc.Arbitrary<EncodableTx> = fc.oneof({ weight: 5, arbitrary: legacyTx }, { weight: 5, arbitrary: segwitTx }, { weight: 1, arbitrary: emptyTx });

export const hasWitness = (tx: EncodableTx): boolean => tx.inputs.some((i) => (i.witness?.length ?? 0) > 0);

/** A CompactSize in a serialized transaction: a count of elements, or the length of a script or witness item. */
export interface SizeField {
  offset: number;
  width: number;
  kind: 'count' | 'length';
}

/**
 * Where every CompactSize of a valid serialized transaction sits, found by a
 * walk of its own (independent of the codec under test).
 */
export function sizeFields(bytes: Buffer): SizeField[] {
  const fields: SizeField[] = [];
  const segwit = bytes[4] === 0 && bytes[5] === 1;
  let pos = segwit ? 6 : 4;
  const read = (kind: SizeField['kind']): number => {
    const first = bytes[pos]!;
    const width = first < 0xfd ? 1 : first === 0xfd ? 3 : first === 0xfe ? 5 : 9;
    if (width === 9) throw new Error('A valid transaction has no 9-byte CompactSize');
    const n = width === 1 ? first : bytes.readUIntLE(pos + 1, width - 1);
    fields.push({ offset: pos, width, kind });
    pos += width;
    return n;
  };
  // `pos += read(...)` would add to the value `pos` had before the read moved it.
  const skip = (n: number) => {
    pos += n;
  };
  const inputs = read('count');
  for (let i = 0; i < inputs; i++) {
    skip(36);
    skip(read('length'));
    skip(4);
  }
  const outputs = read('count');
  for (let i = 0; i < outputs; i++) {
    skip(8);
    skip(read('length'));
  }
  if (segwit) {
    for (let i = 0; i < inputs; i++) {
      const items = read('count');
      for (let j = 0; j < items; j++) skip(read('length'));
    }
  }
  if (pos + 4 !== bytes.length) throw new Error(`sizeFields walked to ${pos + 4} of ${bytes.length} bytes`);
  return fields;
}

/** The canonical CompactSize of any value up to 2^64 - 1 (Bitcoin Core's WriteCompactSize). */
export function compactSizeBytes(n: bigint): Buffer {
  if (n < 0xfdn) return Buffer.from([Number(n)]);
  if (n <= 0xffffn) return Buffer.from([0xfd, Number(n & 0xffn), Number(n >> 8n)]);
  if (n <= 0xffff_ffffn) {
    const b = Buffer.alloc(5);
    b[0] = 0xfe;
    b.writeUInt32LE(Number(n), 1);
    return b;
  }
  const b = Buffer.alloc(9);
  b[0] = 0xff;
  b.writeBigUInt64LE(n, 1);
  return b;
}

/** `bytes` with the CompactSize `field` replaced by `n`. */
export function withSize(bytes: Buffer, field: SizeField, n: bigint): Buffer {
  return Buffer.concat([bytes.subarray(0, field.offset), compactSizeBytes(n), bytes.subarray(field.offset + field.width)]);
}

/**
 * Counts and lengths no transaction can have: 2^64 - 1, 2^63, 2^53 + 1
 * (beyond exact doubles), 2^32, 2^32 - 1, and 2^31. Each claims more elements
 * or bytes than a transaction of at most 4,000,000 bytes holds.
 */
export const ABSURD_SIZES: readonly bigint[] = [2n ** 64n - 1n, 2n ** 63n, 2n ** 53n + 1n, 2n ** 32n, 2n ** 32n - 1n, 2n ** 31n];

// ---- The corpus the p99 is measured over ---------------------------------------

export type CorpusKind = 'valid' | 'bit-flipped' | 'absurd-size' | 'spliced' | 'random-bytes' | 'random-hex' | 'random-text' | 'oversized';

export interface CorpusItem {
  kind: CorpusKind;
  /** What decodeTxHex is given. */
  hex: string;
}

function flipBits(bytes: Buffer, flips: ReadonlyArray<readonly [number, number]>): Buffer {
  const out = Buffer.from(bytes);
  for (const [at, bit] of flips) out[at % out.length]! ^= 1 << bit;
  return out;
}

const flips = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 6 });
const hexChars = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 600 });

/** Every kind of input, weighted so that each kind is well represented in a few thousand items. */
const corpusItem: fc.Arbitrary<CorpusItem> = fc.oneof(
  fc.record({ kind: fc.constant<CorpusKind>('valid'), hex: validTx.map((tx) => encodeTx(tx).toString('hex')) }),
  fc.tuple(validTx, flips).map(([tx, f]): CorpusItem => ({ kind: 'bit-flipped', hex: flipBits(encodeTx(tx), f).toString('hex') })),
  fc.tuple(validTx, fc.nat(), fc.constantFrom(...ABSURD_SIZES)).map(([tx, at, n]): CorpusItem => {
    const bytes = encodeTx(tx);
    const fields = sizeFields(bytes);
    return { kind: 'absurd-size', hex: withSize(bytes, fields[at % fields.length]!, n).toString('hex') };
  }),
  fc.tuple(validTx, fc.nat(), fc.uint8Array({ maxLength: 16 }), fc.nat({ max: 16 })).map(([tx, at, junk, cut]): CorpusItem => {
    const bytes = encodeTx(tx);
    const i = at % bytes.length;
    return { kind: 'spliced', hex: Buffer.concat([bytes.subarray(0, i), junk, bytes.subarray(i + cut)]).toString('hex') };
  }),
  fc.uint8Array({ maxLength: 1_000 }).map((b): CorpusItem => ({ kind: 'random-bytes', hex: Buffer.from(b).toString('hex') })),
  hexChars.map((hex): CorpusItem => ({ kind: 'random-hex', hex })),
  fc.string({ unit: 'binary', maxLength: 500 }).map((hex): CorpusItem => ({ kind: 'random-text', hex })),
);

/**
 * Inputs twice the size limit: hex of 2 * 4,000,000 bytes, as zeros, as
 * text that is not hex at all, and a valid transaction with a witness item
 * inflated past the limit. Built once; megabytes each.
 */
export function oversizedItems(): CorpusItem[] {
  const twice = 2 * 2 * MAX_BLOCK_WEIGHT;
  const inflated = encodeTx({
    version: 2,
    locktime: 0,
    inputs: [{ txid: 'ab'.repeat(32), vout: 0, scriptSig: '', sequence: 0xffff_fffd, witness: ['00'.repeat(2 * MAX_BLOCK_WEIGHT)] }],
    outputs: [{ value: 1_000, scriptPubKey: '51' }],
  }).toString('hex');
  return [
    { kind: 'oversized', hex: '0'.repeat(twice) },
    { kind: 'oversized', hex: 'zz'.repeat(twice / 2) },
    { kind: 'oversized', hex: inflated },
    // Exactly the limit in hex: 4,000,000 bytes of zeros, read right to the end.
    { kind: 'oversized', hex: '00'.repeat(MAX_BLOCK_WEIGHT) },
  ];
}

/** `count` generated items from `seed`, then the oversized ones. */
export function fuzzCorpus(count: number, seed = FUZZ_SEED): CorpusItem[] {
  return [...fc.sample(corpusItem, { seed, numRuns: count }), ...oversizedItems()];
}
