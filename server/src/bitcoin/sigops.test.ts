import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sigopAdjustedVsize } from '@slipstream/mempool-engine/bitcoin/virtual-size';
import { transactionSigOpCost, transactionSigOpCostParts } from './sigops.ts';
import { decodeTxHex, encodeTxHex, type DecodedTx } from './tx-codec.ts';

// Hand-built scripts; expected counts follow Bitcoin Core's
// consensus/tx_verify.cpp GetTransactionSigOpCost and script/script.cpp
// CScript::GetSigOpCount, worked out by hand in each test.

const PK1 = `02${'11'.repeat(32)}`;
const PK2 = `03${'22'.repeat(32)}`;
const PK3 = `02${'33'.repeat(32)}`;
const SIG = `30${'44'.repeat(70)}01`; // 72 bytes: the shape of a DER signature plus sighash byte
const HASH20 = 'ab'.repeat(20);
const HASH32 = 'cd'.repeat(32);

/** Minimal push of `hex` (direct push up to 75 bytes, else OP_PUSHDATA1/2). */
function push(hex: string): string {
  const n = hex.length / 2;
  if (n <= 0x4b) return n.toString(16).padStart(2, '0') + hex;
  if (n <= 0xff) return `4c${n.toString(16).padStart(2, '0')}${hex}`;
  const le = Buffer.alloc(2);
  le.writeUInt16LE(n);
  return `4d${le.toString('hex')}${hex}`;
}

const p2pkh = `76a914${HASH20}88ac`;
const p2sh = `a914${HASH20}87`;
const p2wpkh = `0014${HASH20}`;
const p2wsh = `0020${HASH32}`;
const p2tr = `5120${HASH32}`;
/** Bare 1-of-3 multisig, as Stamps and Counterparty use: OP_1 <pk> <pk> <pk> OP_3 OP_CHECKMULTISIG. */
const bareMultisig1of3 = `51${push(PK1)}${push(PK2)}${push(PK3)}53ae`;
/** 2-of-3 multisig script, used as a P2SH redeemScript or a P2WSH witness script. */
const multisig2of3 = `52${push(PK1)}${push(PK2)}${push(PK3)}53ae`;

interface TestInput {
  scriptSig?: string;
  witness?: string[];
}

/** A transaction through our own encoder and decoder, as the portal would see it. */
function tx(inputs: TestInput[], outputs: string[]): DecodedTx {
  return decodeTxHex(
    encodeTxHex({
      version: 2,
      locktime: 0,
      inputs: inputs.map((input, i) => ({
        txid: (i + 1).toString(16).padStart(64, '0'),
        vout: 0,
        scriptSig: input.scriptSig ?? '',
        sequence: 0xffff_fffd,
        witness: input.witness ?? [],
      })),
      outputs: outputs.map((scriptPubKey) => ({ value: 1_000, scriptPubKey })),
    }),
  );
}

test('P2PKH spend to a P2PKH output: the output CHECKSIG counts 1 legacy sigop, cost 4', () => {
  const decoded = tx([{ scriptSig: push(SIG) + push(PK1) }], [p2pkh]);
  // The spent P2PKH's own CHECKSIG is not in this transaction: only its scriptSig is, and it is all pushes.
  assert.deepEqual(transactionSigOpCostParts(decoded, [p2pkh]), { legacy: 4, p2sh: 0, witness: 0, total: 4, complete: true });
  assert.equal(transactionSigOpCost(decoded, [p2pkh]), 4);
});

test('a bare 1-of-3 multisig output costs 80: CHECKMULTISIG counts 20 when counted inaccurately', () => {
  const decoded = tx([{ witness: [SIG, PK1] }], [bareMultisig1of3]);
  // 20 legacy × 4 = 80, plus 1 for the P2WPKH input.
  assert.deepEqual(transactionSigOpCostParts(decoded, [p2wpkh]), { legacy: 80, p2sh: 0, witness: 1, total: 81, complete: true });
});

test('thirty bare multisig outputs: sigops, not weight, set the virtual size', () => {
  const decoded = tx([{ witness: [SIG, PK1] }], [...Array.from({ length: 30 }, () => bareMultisig1of3), p2wpkh]);
  const cost = transactionSigOpCost(decoded, [p2wpkh]);
  assert.equal(cost, 30 * 80 + 1);
  assert.equal(sigopAdjustedVsize(decoded.weight, cost), Math.ceil((2401 * 20) / 4));
  assert.ok(sigopAdjustedVsize(decoded.weight, cost) > 2 * decoded.vsize);
});

test('P2SH 2-of-3 multisig spend: the redeemScript is counted accurately (OP_3 → 3), × 4', () => {
  const decoded = tx([{ scriptSig: `00${push(SIG)}${push(SIG)}${push(multisig2of3)}` }], [p2wpkh]);
  // The scriptSig is all pushes (0 legacy); the P2WPKH output has no sigop opcode.
  assert.deepEqual(transactionSigOpCostParts(decoded, [p2sh]), { legacy: 0, p2sh: 12, witness: 0, total: 12, complete: true });
});

test('a redeemScript over 75 bytes pushed with OP_PUSHDATA1 is found as the last push', () => {
  const redeem = `${multisig2of3}${'75'.repeat(10)}`; // + ten OP_DROPs: 115 bytes
  const scriptSig = `00${push(SIG)}${push(redeem)}`;
  assert.ok(push(redeem).startsWith('4c73'));
  assert.equal(transactionSigOpCost(tx([{ scriptSig }], [p2wpkh]), [p2sh]), 12);
});

test('P2SH: a scriptSig that is not push-only, or is malformed, has no P2SH sigops (but its legacy ones count)', () => {
  // OP_CHECKSIG then the redeemScript push: legacy 1 × 4, and GetSigOpCount(scriptSig) returns 0.
  const notPushOnly = tx([{ scriptSig: `ac${push(multisig2of3)}` }], [p2wpkh]);
  assert.deepEqual(transactionSigOpCostParts(notPushOnly, [p2sh]), { legacy: 4, p2sh: 0, witness: 0, total: 4, complete: true });
  // The redeemScript push (OP_PUSHDATA1, 105 bytes) claims one byte more than there is:
  // the legacy count stops there too, so nothing at all is counted.
  const truncatedPush = tx([{ scriptSig: `00${push(SIG)}4c${(multisig2of3.length / 2 + 1).toString(16)}${multisig2of3}` }], [p2wpkh]);
  assert.deepEqual(transactionSigOpCostParts(truncatedPush, [p2sh]), { legacy: 0, p2sh: 0, witness: 0, total: 0, complete: true });
  // A final OP_1 is a push of no data: the redeemScript is empty.
  const endsInSmallInt = tx([{ scriptSig: `${push(multisig2of3)}51` }], [p2wpkh]);
  assert.equal(transactionSigOpCost(endsInSmallInt, [p2sh]), 0);
});

test('P2WPKH counts 1 witness sigop, not scaled', () => {
  assert.equal(transactionSigOpCost(tx([{ witness: [SIG, PK1] }], [p2wpkh]), [p2wpkh]), 1);
  // WitnessSigOps does not look at the witness for a key hash: 1 even with an empty one.
  assert.equal(transactionSigOpCost(tx([{}], [p2wpkh]), [p2wpkh]), 1);
});

test('P2WSH 2-of-3: the witness script (last item) counted accurately is 3', () => {
  assert.equal(transactionSigOpCost(tx([{ witness: ['', SIG, SIG, multisig2of3] }], [p2wpkh]), [p2wsh]), 3);
  // No witness at all: WitnessSigOps needs a last item, so 0.
  assert.equal(transactionSigOpCost(tx([{}], [p2wpkh]), [p2wsh]), 0);
  // Accurate counting uses only OP_1..OP_16 before CHECKMULTISIG: OP_0 (or a push) means 20.
  assert.equal(transactionSigOpCost(tx([{ witness: [`00${push(PK1)}51ae`] }], [p2wpkh]), [p2wsh]), 1);
  assert.equal(transactionSigOpCost(tx([{ witness: ['00ae'] }], [p2wpkh]), [p2wsh]), 20);
  assert.equal(transactionSigOpCost(tx([{ witness: [`${push('10')}ae`] }], [p2wpkh]), [p2wsh]), 20);
  assert.equal(transactionSigOpCost(tx([{ witness: ['60af'] }], [p2wpkh]), [p2wsh]), 16);
});

test('P2SH-wrapped segwit: the redeemScript is the witness program', () => {
  const wrappedWpkh = tx([{ scriptSig: push(p2wpkh), witness: [SIG, PK1] }], [p2wpkh]);
  assert.deepEqual(transactionSigOpCostParts(wrappedWpkh, [p2sh]), { legacy: 0, p2sh: 0, witness: 1, total: 1, complete: true });
  const wrappedWsh = tx([{ scriptSig: push(p2wsh), witness: ['', SIG, SIG, multisig2of3] }], [p2wpkh]);
  assert.deepEqual(transactionSigOpCostParts(wrappedWsh, [p2sh]), { legacy: 0, p2sh: 0, witness: 3, total: 3, complete: true });
  // The same witness under a P2SH whose redeemScript is not a witness program counts nothing.
  // (A P2PKH script as redeemScript: its CHECKSIG is a P2SH sigop, 1 × 4; the witness is ignored.)
  const notWrapped = tx([{ scriptSig: push(SIG) + push(PK1) + push(p2pkh), witness: ['', multisig2of3] }], [p2wpkh]);
  assert.deepEqual(transactionSigOpCostParts(notWrapped, [p2sh]), { legacy: 0, p2sh: 4, witness: 0, total: 4, complete: true });
  // A version 1 program wrapped in P2SH (22 bytes: OP_1 <20 bytes>): not v0, so 0.
  const wrappedV1 = tx([{ scriptSig: push(`51${push(HASH20)}`), witness: ['', multisig2of3] }], [p2wpkh]);
  assert.equal(transactionSigOpCost(wrappedV1, [p2sh]), 0);
});

test('taproot and unknown witness versions count 0, whatever the script path holds', () => {
  const tapscript = `${push(PK1.slice(2))}ac${push(PK2.slice(2))}ba52`;
  assert.equal(transactionSigOpCost(tx([{ witness: [SIG, tapscript, `c0${HASH32}`] }], [p2wpkh]), [p2tr]), 0);
  assert.equal(transactionSigOpCost(tx([{ witness: [multisig2of3] }], [p2wpkh]), [`5220${HASH32}`]), 0);
  // Version 0 with a program neither 20 nor 32 bytes long: 0.
  assert.equal(transactionSigOpCost(tx([{ witness: [multisig2of3] }], [p2wpkh]), [`0018${'ab'.repeat(24)}`]), 0);
});

test('the legacy count of a scriptPubKey is inaccurate: a 2-of-3 bare multisig output still counts 20', () => {
  assert.equal(transactionSigOpCost(tx([{}], [multisig2of3]), [p2wpkh]), 20 * 4 + 1);
  // CHECKSIGVERIFY and CHECKMULTISIGVERIFY count like their non-VERIFY forms.
  assert.equal(transactionSigOpCost(tx([{}], ['adadaf']), [p2tr]), (1 + 1 + 20) * 4);
});

test('pushed bytes are data, not opcodes: OP_PUSHDATA1/2/4 skip their payload', () => {
  const cost = (script: string) => transactionSigOpCost(tx([{}], [script]), [p2tr]) / 4;
  assert.equal(cost('02acacac'), 1); // push of two CHECKSIG bytes, then one real CHECKSIG
  assert.equal(cost('4c02acacac'), 1); // OP_PUSHDATA1
  assert.equal(cost('4d0300acacacac'), 1); // OP_PUSHDATA2, little-endian length 3
  assert.equal(cost(`4d${'0001'}${'ae'.repeat(256)}ac`), 1); // OP_PUSHDATA2 of 256 bytes
  assert.equal(cost('4e01000000aeae'), 20); // OP_PUSHDATA4
});

test('a truncated push ends the count where it fails, keeping what was counted before', () => {
  const cost = (script: string) => transactionSigOpCost(tx([{}], [script]), [p2tr]) / 4;
  assert.equal(cost('ac05acacacac'), 1); // push of 5 bytes with 4 left: the CHECKSIGs inside are never reached
  assert.equal(cost('acae4c'), 21); // OP_PUSHDATA1 without its length byte
  assert.equal(cost('acae4d01'), 21); // OP_PUSHDATA2 with one length byte of two
  assert.equal(cost('ac4e010000'), 1); // OP_PUSHDATA4 with three length bytes of four
  assert.equal(cost('ac4e02000000ac'), 1); // OP_PUSHDATA4 of 2 bytes with 1 left
  assert.equal(cost('ac4dffffac'), 1); // OP_PUSHDATA2 claiming 65,535 bytes
  // The same in a scriptSig (counted in the legacy part).
  assert.equal(transactionSigOpCost(tx([{ scriptSig: 'acad4c05ac' }], [p2wpkh]), [p2wpkh]), 2 * 4 + 1);
  // And in a P2WSH witness script (counted accurately).
  assert.equal(transactionSigOpCost(tx([{ witness: ['53ae4d'] }], [p2wpkh]), [p2wsh]), 3);
});

test('a coinbase counts only its legacy sigops and needs no prevouts', () => {
  const coinbase = decodeTxHex(
    encodeTxHex({
      version: 2,
      locktime: 0,
      inputs: [{ txid: '0'.repeat(64), vout: 0xffff_ffff, scriptSig: '0151ac', sequence: 0xffff_ffff, witness: ['00'.repeat(32)] }],
      outputs: [{ value: 5_000_000_000, scriptPubKey: p2wsh }, { value: 0, scriptPubKey: bareMultisig1of3 }],
    }),
  );
  assert.deepEqual(transactionSigOpCostParts(coinbase, []), { legacy: 84, p2sh: 0, witness: 0, total: 84, complete: true });
});

test('an unknown prevout adds only its legacy count and marks the result incomplete', () => {
  const decoded = tx([{ witness: [SIG, PK1] }, { scriptSig: `00${push(SIG)}${push(multisig2of3)}` }], [bareMultisig1of3]);
  assert.deepEqual(transactionSigOpCostParts(decoded, [undefined, p2sh]), { legacy: 80, p2sh: 12, witness: 0, total: 92, complete: false });
  assert.deepEqual(transactionSigOpCostParts(decoded, [p2wpkh, p2sh]), { legacy: 80, p2sh: 12, witness: 1, total: 93, complete: true });
  assert.throws(() => transactionSigOpCost(decoded, [p2wpkh]), RangeError);
});

test('never throws on arbitrary scripts, and the adjusted vsize is never below the plain one', () => {
  const script = fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes).toString('hex'));
  const prevout = fc.oneof(script, fc.constantFrom(p2sh, p2wpkh, p2wsh, p2tr, p2pkh), fc.constant(undefined));
  fc.assert(
    fc.property(fc.array(fc.record({ scriptSig: script, witness: fc.array(script, { maxLength: 3 }), prevout }), { minLength: 1, maxLength: 4 }), fc.array(script, { maxLength: 4 }), (inputs, outputs) => {
      const decoded = tx(inputs, outputs);
      const parts = transactionSigOpCostParts(decoded, inputs.map((i) => i.prevout));
      assert.equal(parts.total, parts.legacy + parts.p2sh + parts.witness);
      assert.ok(Number.isSafeInteger(parts.total) && parts.total >= 0);
      assert.equal(parts.legacy % 4, 0);
      assert.equal(parts.p2sh % 4, 0);
      assert.ok(sigopAdjustedVsize(decoded.weight, parts.total) >= decoded.vsize);
    }),
  );
});
