import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { checkSignatures, isStrictDer } from './signature-check.ts';
import { legacySighash, sighashCache, taprootKeyPathSighash, type SpentOutput } from './sighash.ts';
import { decodeTxHex, encodeTxHex, type DecodedTx } from './tx-codec.ts';

/**
 * Digests and signatures checked against data nobody here wrote: Bitcoin
 * Core's sighash.json (legacy digests) and BIP341's wallet vectors, whose
 * fully signed transaction spends seven taproot key paths, a P2PKH and a
 * P2WPKH output. Transactions the regtest node's wallet signs are checked in
 * test/signature-check.oracle.test.ts.
 */

const vector = <T>(name: string): T => JSON.parse(readFileSync(new URL(`./vectors/${name}`, import.meta.url), 'utf8')) as T;

interface Bip341Vectors {
  rawUnsignedTx: string;
  utxosSpent: Array<{ scriptPubKey: string; amountSats: number }>;
  inputSpending: Array<{ txinIndex: number; hashType: number; sigHash: string; witness: string[] }>;
  fullySignedTx: string;
}

const bip341 = vector<Bip341Vectors>('bip341-keypath-spending.json');
const spent: SpentOutput[] = bip341.utxosSpent.map((u) => ({ value: u.amountSats, script: u.scriptPubKey }));

/** A copy of `tx` with one input's witness or scriptSig replaced. */
function withInput(tx: DecodedTx, index: number, change: { witness?: string[]; scriptSig?: string }): DecodedTx {
  return decodeTxHex(encodeTxHex({ ...tx, inputs: tx.inputs.map((input, i) => (i === index ? { ...input, ...change } : input)) }));
}

/** Flips the lowest bit of the byte at `at` (negative: from the end) of a hex string. */
function flipByte(hex: string, at: number): string {
  const bytes = Buffer.from(hex, 'hex');
  const i = at < 0 ? bytes.length + at : at;
  bytes[i]! ^= 0x01;
  return bytes.toString('hex');
}

describe('legacy signature digests', () => {
  type Row = [string, string, number, number, string];
  const rows = vector<Array<Row | [string]>>('sighash-legacy.json').filter((row): row is Row => row.length === 5);
  it(`match Bitcoin Core's sighash.json (${rows.length} vectors, with OP_CODESEPARATOR, NONE, SINGLE and ANYONECANPAY)`, () => {
    assert.ok(rows.length >= 15);
    for (const [raw, script, index, hashType, expected] of rows) {
      const digest = legacySighash(decodeTxHex(raw), index, script, hashType);
      assert.equal(Buffer.from(digest).reverse().toString('hex'), expected, `${raw.slice(0, 16)}… input ${index}, hash type ${hashType}`);
    }
  });
});

describe('BIP341 key-path digests', () => {
  it('match every input of the BIP341 wallet vectors (each hash type: DEFAULT, ALL, NONE, SINGLE, with and without ANYONECANPAY)', () => {
    const cache = sighashCache(decodeTxHex(bip341.rawUnsignedTx), spent);
    for (const input of bip341.inputSpending) {
      assert.equal(taprootKeyPathSighash(cache, input.txinIndex, input.hashType)?.toString('hex'), input.sigHash, `input ${input.txinIndex}`);
    }
  });

  it('an undefined hash type, or SINGLE without its output, signs nothing', () => {
    const cache = sighashCache(decodeTxHex(bip341.rawUnsignedTx), spent);
    assert.equal(taprootKeyPathSighash(cache, 0, 0x04), undefined);
    assert.equal(taprootKeyPathSighash(cache, 0, 0x80), undefined);
    assert.equal(taprootKeyPathSighash(cache, 3, 0x03), undefined, 'input 3 of a 2-output transaction');
  });
});

describe('checkSignatures', () => {
  const signed = decodeTxHex(bip341.fullySignedTx);

  it('passes the fully signed BIP341 transaction: taproot key paths, a P2PKH and a P2WPKH input', () => {
    assert.deepEqual(checkSignatures(signed, spent), { ok: true });
  });

  it('fails it with one signature byte flipped, whichever input', () => {
    // A taproot key path (input 0), the P2WPKH input (5): the flipped byte is inside the signature.
    assert.deepEqual(checkSignatures(withInput(signed, 0, { witness: [flipByte(signed.inputs[0]!.witness[0]!, 10)] }), spent), { ok: false, input: 0, reason: 'invalid' });
    assert.deepEqual(checkSignatures(withInput(signed, 5, { witness: [flipByte(signed.inputs[5]!.witness[0]!, 20), signed.inputs[5]!.witness[1]!] }), spent), { ok: false, input: 5, reason: 'invalid' });
    // The P2PKH input (2): byte 20 of the scriptSig lies in the signature's R.
    assert.deepEqual(checkSignatures(withInput(signed, 2, { scriptSig: flipByte(signed.inputs[2]!.scriptSig, 20) }), spent), { ok: false, input: 2, reason: 'invalid' });
  });

  it('fails it when an output it signs changes, or a spent amount is not what was signed', () => {
    const changed = decodeTxHex(encodeTxHex({ ...signed, outputs: signed.outputs.map((o, i) => (i === 0 ? { ...o, value: o.value - 1 } : o)) }));
    assert.equal(checkSignatures(changed, spent).ok, false);
    const otherAmount = spent.map((s, i) => (i === 5 ? { ...s, value: s.value + 1 } : s));
    // BIP341 signatures commit to every spent amount, so the first taproot input already fails.
    assert.deepEqual(checkSignatures(signed, otherAmount), { ok: false, input: 0, reason: 'invalid' });
  });

  it('fails the unsigned transaction at its first input', () => {
    assert.deepEqual(checkSignatures(decodeTxHex(bip341.rawUnsignedTx), spent), { ok: false, input: 0, reason: 'invalid' });
  });

  it('cannot vouch for an input of another kind, nor for an unknown spent output', () => {
    const bareMultisig = spent.map((s, i) => (i === 0 ? { ...s, script: '5121' + '02'.padEnd(66, '1') + '51ae' } : s));
    assert.deepEqual(checkSignatures(signed, bareMultisig), { ok: false, input: 0, reason: 'unsupported' });
    const p2wsh = spent.map((s, i) => (i === 0 ? { ...s, script: '0020' + 'ab'.repeat(32) } : s));
    assert.deepEqual(checkSignatures(signed, p2wsh), { ok: false, input: 0, reason: 'unsupported' });
    assert.deepEqual(checkSignatures(signed, spent.map((s, i) => (i === 4 ? undefined : s))), { ok: false, input: 4, reason: 'missing-prevout' });
  });

  it('a taproot witness of two items that are not signature and annex is a script path: not vouched for', () => {
    assert.deepEqual(checkSignatures(withInput(signed, 0, { witness: ['51', 'c0' + '11'.repeat(32)] }), spent), { ok: false, input: 0, reason: 'unsupported' });
  });

  it('an annex is signed: a key-path signature made without it fails with one', () => {
    const withAnnex = withInput(signed, 0, { witness: [signed.inputs[0]!.witness[0]!, '50' + '00'.repeat(100_000)] });
    assert.deepEqual(checkSignatures(withAnnex, spent), { ok: false, input: 0, reason: 'invalid' });
  });
});

describe('isStrictDer (BIP66)', () => {
  it('takes the wallet signature of the vectors and refuses padded, truncated or empty ones', () => {
    const der = Buffer.from('304402202b795e4de72646d76eab3f0ab27dfa30b810e856ff3a46c9a702df53bb0d8cc302203ccc4d822edab5f35caddb10af1be93583526ccfbade4b4ead350781e2f8adcd01', 'hex');
    assert.equal(isStrictDer(der), true);
    assert.equal(isStrictDer(Buffer.alloc(0)), false);
    assert.equal(isStrictDer(der.subarray(0, 40)), false);
    const padded = Buffer.concat([Buffer.from([0x30, 0x45, 0x02, 0x21, 0x00]), der.subarray(4)]);
    assert.equal(isStrictDer(padded), false, 'an R padded with a zero it does not need');
  });
});
