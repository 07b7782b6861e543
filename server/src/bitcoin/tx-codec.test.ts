import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  MAX_BLOCK_WEIGHT,
  MAX_MONEY,
  TxDecodeError,
  WITNESS_SCALE_FACTOR,
  decodeTx,
  decodeTxHex,
  encodeTx,
  encodeTxHex,
  type EncodableTx,
  type TxDecodeErrorCode,
} from './tx-codec.ts';

// Real transactions whose txids are published; each decoded txid below is
// the double-SHA256 of these bytes, so a wrong hex could not match by chance.

/** Mainnet block 170: the first transfer between people (Satoshi to Hal Finney). */
const BLOCK_170_TX =
  '0100000001c997a5e56e104102fa209c6a852dd90660a20b2d9c352423edce25857fcd3704000000004847304402204e45e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4acdd12909d831cc56cbbac4622082221a8768d1d0901ffffffff0200ca9a3b00000000434104ae1a62fe09c5f51b13905f07f06b99a2f7159b2225f374cd378d71302fa28414e7aab37397f554a7df5f142c21c1b7303b8a0626f1baded5c72a704f7e6cd84cac00286bee0000000043410411db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5cb2e0eaddfb84ccf9744464f82e160bfa9b8b64f9d4c03f999b8643f656b412a3ac00000000';
const BLOCK_170_TXID = 'f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16';

/** Mainnet c659729a…: version field 0x9a7bb4f0, which the node prints unsigned. */
const ODD_VERSION_TX =
  'f0b47b9a01ecf5e5c3bbf2cf1f71ecdc7f708b0b222432e914b394e24aad1494a42990ddfc000000008b483045022100852744642305a99ad74354e9495bf43a1f96ded470c256cd32e129290f1fa191022030c11d294af6a61b3da6ed2c0c296251d21d113cfd71ec11126517034b0dcb70014104a0fe6e4a600f859a0932f701d3af8e0ecd4be886d91045f06a5a6b931b95873aea1df61da281ba29cadb560dad4fc047cf47b4f7f2570da4c0b810b3dfa7e500ffffffff0240420f00000000001976a9147eeacb8a9265cd68c92806611f704fc55a21e1f588ac05f00d00000000001976a914eb3bd8ccd3ba6f1570f844b59ba3e0a667024a6a88acff7f0000';
const ODD_VERSION_TXID = 'c659729a7fea5071361c2c1a68551ca2bf77679b27086cc415adeeb03852e369';

/** Testnet 4be105f1…: an early BIP144 (segwit) coinbase; rust-bitcoin's tests pin its weight at 780. */
const SEGWIT_TX =
  '010000000001010000000000000000000000000000000000000000000000000000000000000000ffffffff3603da1b0e00045503bd5704c7dd8a0d0ced13bb5785010800000000000a636b706f6f6c122f4e696e6a61506f6f6c2f5345475749542fffffffff02b4e5a212000000001976a914876fbb82ec05caa6af7a3b5e5a983aae6c6cc6d688ac0000000000000000266a24aa21a9edf91c46b49eb8a29089980f02ee6b57e7d63d33b18b4fddac2bcd7db2a39837040120000000000000000000000000000000000000000000000000000000000000000000000000';
const SEGWIT_TXID = '4be105f158ea44aec57bf12c5817d073a712ab131df6f37786872cfc70734188';

/** Independent txid computation: double SHA-256 of whole bytes, byte-reversed. */
function sha256dDisplay(bytes: Buffer): string {
  const once = createHash('sha256').update(bytes).digest();
  return createHash('sha256').update(once).digest().reverse().toString('hex');
}

function stripWitness(tx: EncodableTx): EncodableTx {
  return { ...tx, inputs: tx.inputs.map((input) => ({ ...input, witness: [] })) };
}

function expectDecodeError(run: () => unknown, code: TxDecodeErrorCode, message: string | RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof TxDecodeError, `expected TxDecodeError, got ${String(error)}`);
    assert.equal(error.name, 'TxDecodeError');
    assert.equal(error.code, code);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

const ZERO_TXID = '00'.repeat(32);
const P2WPKH = '0014' + '11'.repeat(20);
const simpleInput = (witness: string[] = []) => ({ txid: 'ab'.repeat(32), vout: 1, scriptSig: '', sequence: 0xfffffffd, witness });

test('decodes the block 170 transaction (legacy) to its published txid and fields', () => {
  const tx = decodeTxHex(BLOCK_170_TX);
  assert.equal(tx.txid, BLOCK_170_TXID);
  assert.equal(tx.wtxid, BLOCK_170_TXID);
  assert.equal(tx.version, 1);
  assert.equal(tx.locktime, 0);
  assert.equal(tx.hasWitness, false);
  assert.equal(tx.size, 275);
  assert.equal(tx.weight, 275 * 4);
  assert.equal(tx.vsize, 275);
  assert.equal(tx.inputs.length, 1);
  assert.deepEqual(tx.inputs[0], {
    txid: '0437cd7f8525ceed2324359c2d0ba26006d92d856a9c20fa0241106ee5a597c9',
    vout: 0,
    scriptSig: BLOCK_170_TX.slice(84, 84 + 0x48 * 2),
    sequence: 0xffffffff,
    witness: [],
  });
  assert.deepEqual(tx.outputs.map((o) => o.value), [1_000_000_000, 4_000_000_000]);
  assert.equal(tx.outputs[1]!.scriptPubKey.length, 0x43 * 2);
  assert.equal(encodeTxHex(tx), BLOCK_170_TX);
});

test('decodes a version outside 1..2 and prints it unsigned, as the node does', () => {
  const tx = decodeTxHex(ODD_VERSION_TX);
  assert.equal(tx.txid, ODD_VERSION_TXID);
  assert.equal(tx.version, 0x9a7bb4f0);
  assert.equal(tx.locktime, 0x7fff);
  assert.equal(encodeTxHex(tx), ODD_VERSION_TX);
  // The same four bytes may be given to the encoder signed.
  assert.equal(encodeTxHex({ ...tx, version: 0x9a7bb4f0 | 0 }), ODD_VERSION_TX);
});

test('decodes a BIP144 segwit transaction: txid without witness, wtxid over all bytes, BIP141 weight', () => {
  const bytes = Buffer.from(SEGWIT_TX, 'hex');
  const tx = decodeTx(bytes);
  assert.equal(tx.txid, SEGWIT_TXID);
  assert.equal(tx.wtxid, sha256dDisplay(bytes));
  assert.notEqual(tx.wtxid, tx.txid);
  assert.equal(tx.hasWitness, true);
  assert.equal(tx.size, 222);
  assert.equal(tx.weight, 780);
  assert.equal(tx.vsize, 195);
  assert.deepEqual(tx.inputs[0]!.witness, [ZERO_TXID]);
  assert.equal(tx.inputs[0]!.txid, ZERO_TXID);
  assert.equal(tx.inputs[0]!.vout, 0xffffffff);
  assert.deepEqual(tx.outputs.map((o) => o.value), [312665524, 0]);
  // The txid is the hash of the same transaction serialized without witness.
  assert.equal(sha256dDisplay(encodeTx(stripWitness(tx))), SEGWIT_TXID);
  assert.equal(encodeTxHex(tx), SEGWIT_TX);
});

test('accepts upper-case hex', () => {
  assert.deepEqual(decodeTxHex(SEGWIT_TX.toUpperCase()), decodeTxHex(SEGWIT_TX));
});

test('weight and vsize follow BIP141 (vsize rounds up)', () => {
  const legacy = decodeTx(encodeTx({ version: 2, locktime: 0, inputs: [simpleInput()], outputs: [{ value: 1000, scriptPubKey: P2WPKH }] }));
  // 4 version + 1 count + 41 input + 1 count + 31 output + 4 locktime
  assert.equal(legacy.size, 82);
  assert.equal(legacy.weight, 82 * WITNESS_SCALE_FACTOR);
  assert.equal(legacy.vsize, 82);

  const segwit = decodeTx(encodeTx({ version: 2, locktime: 0, inputs: [simpleInput(['aa'.repeat(10)])], outputs: [{ value: 1000, scriptPubKey: P2WPKH }] }));
  // Witness part: marker + flag (2) + stack count (1) + item length (1) + item (10).
  assert.equal(segwit.size, 82 + 14);
  assert.equal(segwit.weight, 82 * 3 + 96);
  assert.equal(segwit.vsize, 86); // 342 / 4 = 85.5, rounded up
});

test('accepts what Core deserializes: zero outputs, zero-value outputs, no inputs and no outputs', () => {
  const noOutputs = decodeTx(encodeTx({ version: 3, locktime: 500, inputs: [simpleInput()], outputs: [] }));
  assert.deepEqual(noOutputs.outputs, []);
  const zeroValue = decodeTx(encodeTx({ version: 2, locktime: 0, inputs: [simpleInput()], outputs: [{ value: 0, scriptPubKey: '6a' }] }));
  assert.equal(zeroValue.outputs[0]!.value, 0);
  // 0x00 0x00 after the version: no inputs, no outputs (not a segwit marker, as in Core).
  const empty = decodeTxHex('02000000' + '00' + '00' + '00000000');
  assert.equal(empty.hasWitness, false);
  assert.deepEqual([empty.inputs, empty.outputs], [[], []]);
  const maxMoney = decodeTx(encodeTx({ version: 2, locktime: 0, inputs: [simpleInput()], outputs: [{ value: MAX_MONEY, scriptPubKey: '' }] }));
  assert.equal(maxMoney.outputs[0]!.value, MAX_MONEY);
});

test('hex errors: empty, not hexadecimal, odd length, too long', () => {
  expectDecodeError(() => decodeTxHex(''), 'empty', 'Transaction hex is empty.');
  expectDecodeError(() => decodeTx(Buffer.alloc(0)), 'empty', 'Transaction data is empty.');
  const notHex = 'Transaction hex contains characters that are not hexadecimal.';
  for (const bad of ['zz', '0100000g', BLOCK_170_TX.slice(0, 20) + ' ' + BLOCK_170_TX.slice(21), '0x01', 'zzz', '01z']) {
    expectDecodeError(() => decodeTxHex(bad), 'not-hex', notHex);
  }
  // Node's hex decoder keeps only the low byte of characters above U+00FF
  // ('š' is U+0161, read as 'a'); these must not slip through as hex.
  const lookalikes = ['\u0161\u0161', BLOCK_170_TX.slice(0, 10) + '\u0130\u0130' + BLOCK_170_TX.slice(12), '\u0161' + BLOCK_170_TX.slice(1), '\uff10\uff10'];
  for (const lookalike of lookalikes) {
    expectDecodeError(() => decodeTxHex(lookalike), 'not-hex', notHex);
  }
  expectDecodeError(() => decodeTxHex('010'), 'odd-length', 'Transaction hex has an odd number of characters.');
  expectDecodeError(() => decodeTxHex(BLOCK_170_TX + '0'), 'odd-length', 'Transaction hex has an odd number of characters.');
  expectDecodeError(
    () => decodeTxHex('00'.repeat(MAX_BLOCK_WEIGHT) + '0z'),
    'too-large',
    'Transaction hex is 8,000,002 characters long, but no transaction over 4,000,000 bytes can fit the consensus limit of 4,000,000 weight units.',
  );
  expectDecodeError(
    () => decodeTx(Buffer.alloc(MAX_BLOCK_WEIGHT + 1)),
    'too-large',
    'Transaction is 4,000,001 bytes, but no transaction over 4,000,000 bytes can fit the consensus limit of 4,000,000 weight units.',
  );
});

test('truncated data and trailing bytes', () => {
  const truncated = 'Transaction data ends unexpectedly (truncated).';
  expectDecodeError(() => decodeTxHex(BLOCK_170_TX.slice(0, -2)), 'truncated', truncated);
  expectDecodeError(() => decodeTxHex('010000'), 'truncated', truncated);
  expectDecodeError(() => decodeTxHex('01000000'), 'truncated', truncated);
  expectDecodeError(() => decodeTxHex('0100000000'), 'truncated', truncated);
  expectDecodeError(() => decodeTxHex(SEGWIT_TX.slice(0, -10)), 'truncated', truncated);
  expectDecodeError(() => decodeTxHex(BLOCK_170_TX + '00'), 'trailing-bytes', 'Transaction has 1 unexpected byte after its end.');
  expectDecodeError(() => decodeTxHex(SEGWIT_TX + 'abcd'), 'trailing-bytes', 'Transaction has 2 unexpected bytes after its end.');
});

test('non-canonical CompactSize is refused, as in Core', () => {
  // Block 170's input count 0x01 re-encoded as 0xfd 0x0100.
  const hex = BLOCK_170_TX.slice(0, 8) + 'fd0100' + BLOCK_170_TX.slice(10);
  expectDecodeError(() => decodeTxHex(hex), 'non-canonical-size', 'Transaction contains a length or count at byte 4 that is not in its shortest (canonical) CompactSize form.');
  // Script length 0x48 as 0xfe 0x48000000, and 0xff with a value fitting in 32 bits.
  expectDecodeError(() => decodeTxHex(BLOCK_170_TX.slice(0, 82) + 'fe48000000' + BLOCK_170_TX.slice(84)), 'non-canonical-size', /at byte 41 /);
  expectDecodeError(() => decodeTxHex('01000000ff0100000000000000'), 'non-canonical-size', /at byte 4 /);
});

test('absurd counts fail fast without allocating', () => {
  expectDecodeError(
    () => decodeTxHex('01000000' + 'ff' + 'ff'.repeat(8)),
    'count-too-large',
    'Transaction declares 18446744073709551615 inputs, more than its remaining 0 bytes could hold (truncated or corrupt data).',
  );
  expectDecodeError(() => decodeTxHex('01000000' + 'fe' + 'ffffffff' + '00'.repeat(100)), 'count-too-large', /declares 4294967295 inputs, more than its remaining 100 bytes/);
  const oneInput = encodeTxHex({ version: 1, locktime: 0, inputs: [simpleInput()], outputs: [] });
  const beforeOutputs = oneInput.slice(0, -10);
  expectDecodeError(() => decodeTxHex(beforeOutputs + 'fd0001' + '00000000'), 'count-too-large', /declares 256 outputs, more than its remaining 4 bytes/);
  const segwit = encodeTxHex({ version: 1, locktime: 0, inputs: [simpleInput(['01'])], outputs: [] });
  const witnessAt = segwit.length - 8 - 6; // stack count 01, item 01 01, then locktime
  expectDecodeError(
    () => decodeTxHex(segwit.slice(0, witnessAt) + 'ff' + 'ff'.repeat(8) + '00000000'),
    'count-too-large',
    /declares 18446744073709551615 witness items for input 0, more than its remaining 4 bytes/,
  );
});

test('segwit marker rules: unknown flag, superfluous witness record', () => {
  const segwit = encodeTxHex({ version: 2, locktime: 0, inputs: [simpleInput(['01'])], outputs: [{ value: 1, scriptPubKey: '' }] });
  expectDecodeError(
    () => decodeTxHex(segwit.slice(0, 10) + '02' + segwit.slice(12)),
    'unknown-flag',
    'Transaction has the segregated witness marker 0x00 followed by flag 0x02, but BIP144 defines only flag 0x01.',
  );
  // Same transaction with its one witness stack emptied: 01 01 01 -> 00.
  const emptied = segwit.slice(0, -8 - 6) + '00' + segwit.slice(-8);
  const superfluous = 'Transaction uses the segregated witness format but every witness is empty (Bitcoin Core: "Superfluous witness record").';
  expectDecodeError(() => decodeTxHex(emptied), 'superfluous-witness', superfluous);
  // A segwit serialization with no inputs can carry no witness either.
  expectDecodeError(() => decodeTxHex('02000000' + '0001' + '00' + '00' + '00000000'), 'superfluous-witness', superfluous);
});

test('output values outside 0..MAX_MONEY are refused', () => {
  const withValue = (value: number) => encodeTx({ version: 2, locktime: 0, inputs: [simpleInput()], outputs: [{ value: 5, scriptPubKey: '' }, { value, scriptPubKey: '' }] });
  expectDecodeError(
    () => decodeTx(withValue(MAX_MONEY + 1)),
    'bad-value',
    'Output 1 has a value of 2100000000000001 satoshis, more than the 2,100,000,000,000,000 satoshis (21,000,000 BTC) that can ever exist.',
  );
  expectDecodeError(() => decodeTx(withValue(-1)), 'bad-value', 'Output 1 has a negative value (-1 satoshis).');
  const huge = withValue(0);
  huge.writeBigUInt64LE(0x7fffffffffffffffn, huge.length - 4 - 1 - 8);
  expectDecodeError(() => decodeTx(huge), 'bad-value', /value of 9223372036854775807 satoshis/);
});

test('weight limit: exactly 4,000,000 WU decodes, one more is refused', () => {
  const withItem = (length: number) => encodeTx({ version: 2, locktime: 0, inputs: [simpleInput(['00'.repeat(length)])], outputs: [{ value: 1, scriptPubKey: P2WPKH }] });
  const probe = decodeTx(withItem(3_000_000)).weight;
  // Witness bytes weigh 1 WU each (BIP141), and the length prefix stays 5 bytes.
  const exact = 3_000_000 + (MAX_BLOCK_WEIGHT - probe);
  assert.equal(decodeTx(withItem(exact)).weight, MAX_BLOCK_WEIGHT);
  expectDecodeError(() => decodeTx(withItem(exact + 1)), 'over-weight', 'Transaction weight 4,000,001 exceeds the consensus limit of 4,000,000 weight units.');
  // Non-witness bytes weigh 4: a ~1 MB legacy transaction is over the limit.
  const legacy = encodeTx({ version: 1, locktime: 0, inputs: [simpleInput()], outputs: [{ value: 0, scriptPubKey: '51'.repeat(1_000_000) }] });
  expectDecodeError(() => decodeTx(legacy), 'over-weight', `Transaction weight ${(legacy.length * 4).toLocaleString('en-US')} exceeds the consensus limit of 4,000,000 weight units.`);
});

test('a ~3.9 MB transaction (one huge witness item) decodes correctly', () => {
  const item = Buffer.alloc(3_900_000);
  for (let i = 0; i < item.length; i++) item[i] = (i * 7) & 0xff;
  const tx: EncodableTx = { version: 2, locktime: 0, inputs: [simpleInput(['51', item.toString('hex')])], outputs: [{ value: 546, scriptPubKey: P2WPKH }] };
  const bytes = encodeTx(tx);
  const decoded = decodeTxHex(bytes.toString('hex'));
  assert.equal(decoded.size, bytes.length);
  assert.ok(decoded.size > 3_900_000);
  assert.equal(decoded.inputs[0]!.witness[1]!.length, 7_800_000);
  assert.ok(Buffer.from(decoded.inputs[0]!.witness[1]!, 'hex').equals(item));
  assert.equal(decoded.wtxid, sha256dDisplay(bytes));
  assert.equal(decoded.txid, sha256dDisplay(encodeTx(stripWitness(tx))));
  assert.equal(decoded.weight, encodeTx(stripWitness(tx)).length * 3 + bytes.length);
  assert.ok(encodeTx(decoded).equals(bytes));
});

test('many outputs, many inputs and many witness items (3- and 5-byte CompactSize counts)', () => {
  const outputs = Array.from({ length: 20_000 }, (_, i) => ({ value: i * 1000, scriptPubKey: P2WPKH }));
  const manyOutputs = decodeTx(encodeTx({ version: 2, locktime: 0, inputs: [simpleInput()], outputs }));
  assert.equal(manyOutputs.outputs.length, 20_000);
  assert.deepEqual(manyOutputs.outputs[19_999], { value: 19_999_000, scriptPubKey: P2WPKH });

  const inputs = Array.from({ length: 20_000 }, (_, i) => ({ ...simpleInput(), vout: i }));
  const manyInputs = decodeTx(encodeTx({ version: 2, locktime: 0, inputs, outputs: [] }));
  assert.equal(manyInputs.inputs.length, 20_000);
  assert.equal(manyInputs.inputs[12_345]!.vout, 12_345);

  const items = Array.from({ length: 70_000 }, () => '');
  const bytes = encodeTx({ version: 2, locktime: 0, inputs: [simpleInput(items)], outputs: [] });
  const manyItems = decodeTx(bytes);
  assert.equal(manyItems.inputs[0]!.witness.length, 70_000);
  assert.ok(encodeTx(manyItems).equals(bytes));
});

test('encoder refuses malformed fields', () => {
  const base: EncodableTx = { version: 2, locktime: 0, inputs: [simpleInput()], outputs: [] };
  assert.throws(() => encodeTx({ ...base, inputs: [{ ...simpleInput(), txid: 'ab' }] }), RangeError);
  assert.throws(() => encodeTx({ ...base, inputs: [{ ...simpleInput(), scriptSig: 'zz' }] }), RangeError);
  assert.throws(() => encodeTx({ ...base, inputs: [{ ...simpleInput(), scriptSig: '\u0161\u0161' }] }), RangeError);
  assert.throws(() => encodeTx({ ...base, inputs: [{ ...simpleInput(), vout: -1 }] }), RangeError);
  assert.throws(() => encodeTx({ ...base, outputs: [{ value: 1.5, scriptPubKey: '' }] }), RangeError);
  assert.throws(() => encodeTx({ ...base, version: 2 ** 32 }), RangeError);
});

// ---- Property tests -------------------------------------------------------

const hexOf = (maxLength: number, minLength = 0) => fc.uint8Array({ minLength, maxLength }).map((b) => Buffer.from(b).toString('hex'));
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const value = fc.oneof(fc.constantFrom(0, 1, MAX_MONEY), fc.bigInt({ min: 0n, max: BigInt(MAX_MONEY) }).map(Number));
const script = fc.oneof({ weight: 4, arbitrary: hexOf(40) }, { weight: 1, arbitrary: hexOf(300, 250) });
const witness = fc.array(fc.oneof(hexOf(80), hexOf(300, 250)), { maxLength: 4 });
const inputArb = (stack: fc.Arbitrary<string[]>) => fc.record({ txid: hexOf(32, 32), vout: u32, scriptSig: script, sequence: u32, witness: stack });

/** Legacy transactions need an input: with none, 0x00 0x01.. reads as the BIP144 marker. */
const legacyTx: fc.Arbitrary<EncodableTx> = fc.record({
  version: fc.integer({ min: -0x8000_0000, max: 0x7fff_ffff }),
  locktime: u32,
  inputs: fc.array(inputArb(fc.constant([])), { minLength: 1, maxLength: 5 }),
  outputs: fc.array(fc.record({ value, scriptPubKey: script }), { maxLength: 5 }),
});
const segwitTx: fc.Arbitrary<EncodableTx> = fc
  .tuple(legacyTx, inputArb(fc.array(hexOf(80), { minLength: 1, maxLength: 4 })), fc.array(inputArb(witness), { maxLength: 4 }), fc.nat())
  .map(([tx, withWitness, others, at]) => {
    const inputs = [...others];
    inputs.splice(at % (others.length + 1), 0, withWitness);
    return { ...tx, inputs };
  });
const anyTx = fc.oneof(legacyTx, segwitTx);

test('property: decode(encode(tx)) returns tx, and encode(decode(bytes)) returns bytes', () => {
  fc.assert(
    fc.property(anyTx, (tx) => {
      const bytes = encodeTx(tx);
      const decoded = decodeTx(bytes);
      const segwit = tx.inputs.some((input) => (input.witness?.length ?? 0) > 0);
      assert.equal(decoded.version, tx.version >>> 0);
      assert.equal(decoded.locktime, tx.locktime);
      assert.deepEqual(decoded.inputs, tx.inputs.map((input) => ({ ...input, witness: input.witness ?? [] })));
      assert.deepEqual(decoded.outputs, tx.outputs.map((output) => ({ ...output })));
      assert.equal(decoded.hasWitness, segwit);
      assert.ok(encodeTx(decoded).equals(bytes));
      // Identities from BIP141, checked against independent computations.
      const stripped = encodeTx(stripWitness(tx));
      assert.equal(decoded.size, bytes.length);
      assert.equal(decoded.weight, stripped.length * 3 + bytes.length);
      assert.equal(decoded.vsize, Math.ceil(decoded.weight / 4));
      assert.equal(decoded.txid, sha256dDisplay(stripped));
      assert.equal(decoded.wtxid, sha256dDisplay(bytes));
      assert.equal(decoded.txid === decoded.wtxid, !segwit);
      assert.deepEqual(decodeTxHex(bytes.toString('hex').toUpperCase()), decoded);
    }),
    { numRuns: 300 },
  );
});

test('property: every strict prefix of a valid transaction is reported as truncated', () => {
  fc.assert(
    fc.property(anyTx, fc.nat(), (tx, cut) => {
      const bytes = encodeTx(tx);
      const prefix = bytes.subarray(0, 1 + (cut % (bytes.length - 1)));
      assert.throws(() => decodeTx(prefix), (error: unknown) => error instanceof TxDecodeError && /truncated/.test(error.message));
    }),
    { numRuns: 300 },
  );
});

/** Decoding either succeeds or fails with TxDecodeError, never anything else. */
function decodesOrTxDecodeError(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof TxDecodeError)) throw error;
    assert.ok(error.message.length > 0);
  }
}

test('property: random bytes and random strings only ever throw TxDecodeError', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (b) => decodesOrTxDecodeError(() => decodeTx(Buffer.from(b)))), { numRuns: 2000 });
  const hexChar = fc.constantFrom(...'0123456789abcdefABCDEF');
  const hexish = fc.string({ unit: fc.oneof({ weight: 20, arbitrary: hexChar }, { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) }), maxLength: 200 });
  fc.assert(
    fc.property(fc.oneof(fc.string(), hexish), (s) => {
      decodesOrTxDecodeError(() => decodeTxHex(s));
      // Anything accepted must really be hex (Node's decoder alone is lenient).
      if (!/^[0-9a-fA-F]*$/.test(s)) assert.throws(() => decodeTxHex(s), TxDecodeError);
    }),
    { numRuns: 2000 },
  );
});

test('property: bit-flipped, spliced and cut valid transactions only ever throw TxDecodeError', () => {
  fc.assert(
    fc.property(anyTx, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 4 }), (tx, flips) => {
      const bytes = encodeTx(tx);
      for (const [at, bit] of flips) bytes[at % bytes.length]! ^= 1 << bit;
      decodesOrTxDecodeError(() => decodeTx(bytes));
    }),
    { numRuns: 1000 },
  );
  fc.assert(
    fc.property(anyTx, fc.nat(), fc.uint8Array({ maxLength: 12 }), (tx, at, junk) => {
      const bytes = encodeTx(tx);
      const cut = at % bytes.length;
      decodesOrTxDecodeError(() => decodeTx(Buffer.concat([bytes.subarray(0, cut), junk, bytes.subarray(cut)])));
      decodesOrTxDecodeError(() => decodeTx(Buffer.concat([bytes.subarray(0, cut), bytes.subarray(cut + 1 + junk.length)])));
    }),
    { numRuns: 1000 },
  );
});

test('uppercase hex decodes to the same lowercase fields as lowercase hex', () => {
  const hex = encodeTxHex({
    version: 2,
    locktime: 0,
    inputs: [{ txid: 'ab'.repeat(32), vout: 1, scriptSig: 'c0ffee', sequence: 0xfffffffd, witness: ['deadbeef', 'ca'.repeat(40)] }],
    outputs: [{ value: 5000, scriptPubKey: '0014' + 'ef'.repeat(20) }],
  });
  const upper = decodeTxHex(hex.toUpperCase());
  assert.deepEqual(upper, decodeTxHex(hex));
  assert.equal(upper.inputs[0]!.witness[1], 'ca'.repeat(40));
  assert.equal(upper.outputs[0]!.scriptPubKey, '0014' + 'ef'.repeat(20));
});
