import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createECDH, createHash } from 'node:crypto';
import { btcToSats, satsToBtc } from '@slipstream/mempool-engine/bitcoin/amounts';
import { sigopAdjustedVsize } from '@slipstream/mempool-engine/bitcoin/virtual-size';
import { transactionSigOpCostParts, type SigOpCostParts } from '../src/bitcoin/sigops.ts';
import { decodeTxHex, encodeTxHex, type DecodedTx } from '../src/bitcoin/tx-codec.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';

/**
 * The sigop cost and sigop-adjusted virtual size against the oracle: the
 * node's own figures for transactions it accepts. `testmempoolaccept` and
 * `getmempoolentry` report the adjusted vsize (policy.cpp
 * GetVirtualTransactionSize with -bytespersigop 20), and `getblocktemplate`
 * reports each transaction's sigop cost (`sigops`, with the segwit rule) as
 * GetTransactionSigOpCost computed it. Most transactions here are built so
 * that sigops, not weight, set the vsize: otherwise a wrong sigop count would
 * still give the right vsize.
 *
 * Scripts are hand-built, signed by the wallet or with our own keys through
 * `signrawtransactionwithkey`, or need no signature at all (anyone-can-spend
 * scripts full of zero-key CHECKMULTISIGs, which cost 20 sigops each).
 */

interface MempoolAccept {
  txid: string;
  allowed: boolean;
  vsize?: number;
  'reject-reason'?: string;
  'reject-details'?: string;
}

interface Coin {
  txid: string;
  vout: number;
  sats: number;
  scriptPubKey: string;
}

/** An output to spend later, with how to satisfy it. */
interface Spendable extends Coin {
  /** For signrawtransactionwithkey (P2SH / P2WSH multisig, P2SH-P2WPKH). */
  redeemScript?: string;
  witnessScript?: string;
  /** For anyone-can-spend scripts: set by hand, nothing to sign. */
  scriptSig?: string;
  witness?: string[];
}

/** Generous flat fee: far above any relay minimum for these sizes (≤ 15,000 vB), far below -maxfeerate. */
const FEE_SATS = 200_000;
const OUTPUT_SATS = 100_000;

let node: TestNode;
before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(15, 'bech32');
});
after(async () => node?.stop());

// ---------------------------------------------------------------- scripts

const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest();
const hash160 = (hex: string) => createHash('ripemd160').update(sha256(hex)).digest().toString('hex');

function push(hex: string): string {
  const n = hex.length / 2;
  if (n <= 0x4b) return n.toString(16).padStart(2, '0') + hex;
  assert.ok(n <= 0xff);
  return `4c${n.toString(16).padStart(2, '0')}${hex}`;
}

/** OP_m <pk>… OP_n OP_CHECKMULTISIG */
const multisig = (m: number, pubkeys: string[]) => `${(0x50 + m).toString(16)}${pubkeys.map(push).join('')}${(0x50 + pubkeys.length).toString(16)}ae`;
const p2sh = (script: string) => `a914${hash160(script)}87`;
const p2wsh = (script: string) => `0020${sha256(script).toString('hex')}`;
const p2wpkh = (pubkey: string) => `0014${hash160(pubkey)}`;

/**
 * Anyone-can-spend, sigop-heavy: ten times `OP_0 OP_0 OP_0 OP_CHECKMULTISIG
 * OP_DROP` (a zero-of-zero multisig with its empty dummy: true, dropped),
 * then OP_1. Counted accurately each CHECKMULTISIG is 20, as the opcode
 * before it is OP_0, not OP_1..OP_16: 200 sigops.
 */
const HEAVY = `${'000000ae75'.repeat(10)}51`;
const HEAVY_SIGOPS = 200;

// ------------------------------------------------------------------- keys

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58check(payload: Buffer): string {
  const bytes = Buffer.concat([payload, sha256(sha256(payload.toString('hex')).toString('hex')).subarray(0, 4)]);
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** Deterministic secp256k1 keys of our own: compressed public key, and the private key as regtest WIF (0xef … 0x01). */
const keys = [1, 2, 3].map((i) => {
  const ecdh = createECDH('secp256k1');
  const secret = sha256(Buffer.from(`sigops oracle key ${i}`).toString('hex'));
  ecdh.setPrivateKey(secret);
  return { pubkey: ecdh.getPublicKey('hex', 'compressed'), wif: base58check(Buffer.concat([Buffer.from([0xef]), secret, Buffer.from([0x01])])) };
});
const pubkeys = keys.map((k) => k.pubkey);

// ------------------------------------------------------------ transactions

/** A confirmed P2WPKH wallet coin, locked so that the harness's builders never take it too. */
async function takeWalletCoin(minSats: number): Promise<Coin> {
  const unspent = await node.wallet.call<Array<{ txid: string; vout: number; amount: number; scriptPubKey: string; desc: string; spendable: boolean }>>('listunspent', [1]);
  const coin = unspent.find((u) => u.spendable && u.desc.startsWith('wpkh(') && btcToSats(u.amount) >= minSats);
  if (!coin) throw new Error(`No confirmed P2WPKH wallet coin of ${minSats} sats`);
  await node.wallet.call('lockunspent', [false, [{ txid: coin.txid, vout: coin.vout }], true]);
  return { txid: coin.txid, vout: coin.vout, sats: btcToSats(coin.amount), scriptPubKey: coin.scriptPubKey };
}

async function walletScript(): Promise<string> {
  const info = await node.wallet.call<{ scriptPubKey: string }>('getaddressinfo', [await node.address('bech32')]);
  return info.scriptPubKey;
}

/** A signed transaction spending one wallet coin to `outputs` plus wallet change. */
async function pay(outputs: Array<{ value: number; scriptPubKey: string }>): Promise<string> {
  const total = outputs.reduce((a, o) => a + o.value, 0);
  const coin = await takeWalletCoin(total + FEE_SATS + 10_000);
  const unsigned = encodeTxHex({
    version: 2,
    locktime: 0,
    inputs: [{ txid: coin.txid, vout: coin.vout, scriptSig: '', sequence: 0xffff_fffd }],
    outputs: [...outputs, { value: coin.sats - total - FEE_SATS, scriptPubKey: await walletScript() }],
  });
  const signed = await node.wallet.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [unsigned]);
  assert.ok(signed.complete, 'the wallet signs its own coin');
  return signed.hex;
}

/** A transaction spending `coins` to one wallet output: signed with our keys, or by hand for anyone-can-spend coins. */
async function spend(coins: Spendable[]): Promise<string> {
  const total = coins.reduce((a, c) => a + c.sats, 0);
  const hex = encodeTxHex({
    version: 2,
    locktime: 0,
    inputs: coins.map((c) => ({ txid: c.txid, vout: c.vout, scriptSig: c.scriptSig ?? '', sequence: 0xffff_fffd, witness: c.witness ?? [] })),
    outputs: [{ value: total - FEE_SATS, scriptPubKey: await walletScript() }],
  });
  if (coins.every((c) => c.scriptSig !== undefined || c.witness !== undefined)) return hex;
  assert.ok(coins.every((c) => c.scriptSig === undefined && c.witness === undefined), 'no mixing of hand-made and key-signed inputs');
  const prevtxs = coins.map((c) => ({
    txid: c.txid,
    vout: c.vout,
    scriptPubKey: c.scriptPubKey,
    amount: satsToBtc(c.sats),
    ...(c.redeemScript === undefined ? {} : { redeemScript: c.redeemScript }),
    ...(c.witnessScript === undefined ? {} : { witnessScript: c.witnessScript }),
  }));
  const signed = await node.rpc.call<{ hex: string; complete: boolean; errors?: Array<{ error: string }> }>('signrawtransactionwithkey', [hex, keys.map((k) => k.wif), prevtxs]);
  assert.ok(signed.complete, `signrawtransactionwithkey: ${JSON.stringify(signed.errors)}`);
  return signed.hex;
}

/** The coins a confirmed funding transaction created, by output index. */
function coinsOf(decoded: DecodedTx, extra: (Omit<Spendable, keyof Coin> | undefined)[]): Spendable[] {
  return extra.flatMap((more, vout) => {
    if (more === undefined) return [];
    const out = decoded.outputs[vout]!;
    return [{ txid: decoded.txid, vout, sats: out.value, scriptPubKey: out.scriptPubKey, ...more }];
  });
}

/** The scriptPubKey each input spends, from the node's UTXO set (mempool included). */
async function prevoutScriptsOf(decoded: DecodedTx): Promise<string[]> {
  return Promise.all(
    decoded.inputs.map(async (input) => {
      const out = await node.rpc.call<{ scriptPubKey: { hex: string } } | null>('gettxout', [input.txid, input.vout, true]);
      assert.ok(out, `prevout ${input.txid}:${input.vout} is unspent`);
      return out.scriptPubKey.hex;
    }),
  );
}

interface Checked {
  decoded: DecodedTx;
  parts: SigOpCostParts;
  vsize: number;
}

/**
 * Our sigop cost and adjusted vsize against the node's: testmempoolaccept,
 * then sendrawtransaction + getmempoolentry, then getblocktemplate; then
 * mines the transaction (a new tip also makes getblocktemplate build afresh
 * next time: it reuses a template for 5 s while the tip stays the same).
 */
async function check(hex: string): Promise<Checked> {
  const decoded = decodeTxHex(hex);
  const prevoutScripts = await prevoutScriptsOf(decoded);
  const parts = transactionSigOpCostParts(decoded, prevoutScripts);
  assert.ok(parts.complete);
  const vsize = sigopAdjustedVsize(decoded.weight, parts.total);

  const [accept] = await node.rpc.call<MempoolAccept[]>('testmempoolaccept', [[hex]]);
  assert.ok(accept?.allowed, `testmempoolaccept refused: ${accept?.['reject-reason']} ${accept?.['reject-details'] ?? ''}`);
  assert.equal(accept.vsize, vsize, 'testmempoolaccept vsize');

  // maxburnamount 0.01 BTC: this Knots counts outputs with malformed scripts as burned.
  const txid = await node.rpc.call<string>('sendrawtransaction', [hex, 0.1, 0.01]);
  assert.equal(txid, decoded.txid);
  const entry = await node.rpc.call<{ vsize: number; weight: number }>('getmempoolentry', [txid]);
  assert.equal(entry.vsize, vsize, 'getmempoolentry vsize');
  assert.equal(entry.weight, decoded.weight, 'getmempoolentry weight');

  const template = await node.rpc.call<{ transactions: Array<{ txid: string; sigops: number; weight: number }> }>('getblocktemplate', [{ rules: ['segwit'] }]);
  const inTemplate = template.transactions.find((t) => t.txid === txid);
  assert.ok(inTemplate, 'the transaction is in the block template');
  assert.equal(inTemplate.sigops, parts.total, 'getblocktemplate sigop cost');
  assert.equal(inTemplate.weight, decoded.weight);

  await node.mine();
  assert.ok((await node.rpc.call<{ confirmations?: number }>('getrawtransaction', [txid, 1])).confirmations);
  return { decoded, parts, vsize };
}

const parts = (legacy: number, p2shCost: number, witness: number): SigOpCostParts => ({ legacy, p2sh: p2shCost, witness, total: legacy + p2shCost + witness, complete: true });

// ------------------------------------------------------------------ tests

test('30 bare 1-of-3 multisig outputs to wallet keys (Stamps, Counterparty): 2,401 sigop cost, several times the plain vsize', async (t) => {
  const addresses = await Promise.all(Array.from({ length: 9 }, () => node.address('bech32')));
  const walletKeys = await Promise.all(addresses.map(async (a) => (await node.wallet.call<{ pubkey: string }>('getaddressinfo', [a])).pubkey));
  const outputs = Array.from({ length: 30 }, (_, i) => ({ value: 1_000, scriptPubKey: multisig(1, [0, 1, 2].map((j) => walletKeys[(3 * i + j) % 9]!)) }));
  assert.match(outputs[0]!.scriptPubKey, /^5121(0[23][0-9a-f]{64})21(0[23][0-9a-f]{64})21(0[23][0-9a-f]{64})53ae$/);
  const hex = await pay(outputs);
  const decoded = decodeTxHex(hex);
  const prevoutScripts = await prevoutScriptsOf(decoded);
  // 30 × CHECKMULTISIG counted as 20 legacy sigops × 4, and the P2WPKH input's 1.
  assert.deepEqual(transactionSigOpCostParts(decoded, prevoutScripts), parts(30 * 80, 0, 1));
  const vsize = sigopAdjustedVsize(decoded.weight, 2_401);
  assert.equal(vsize, Math.ceil((2_401 * 20) / 4));
  assert.ok(vsize > 3 * decoded.vsize, `adjusted ${vsize} vB vs plain ${decoded.vsize} vB`);

  const [accept] = await node.rpc.call<MempoolAccept[]>('testmempoolaccept', [[hex]]);
  if (accept?.allowed) {
    // Bitcoin Core (BITCOIND=…) takes them with -acceptnonstdtxn: the full oracle check.
    await check(hex);
    return;
  }
  // This Knots applies BIP110 (RDTS) output-size rules as mempool policy
  // whatever -acceptnonstdtxn, -permitbaremultisig or -corepolicy say: no
  // scriptPubKey over 34 bytes (83 for OP_RETURN) enters its mempool, so it
  // cannot price these. It still mines them (not consensus on regtest).
  assert.equal(accept?.['reject-reason'], 'bad-txns-vout-script-toolarge');
  await node.rpc.call('generateblock', [await node.address('bech32'), [hex]]);
  t.diagnostic('the node refuses bare multisig outputs by policy (bad-txns-vout-script-toolarge); its mempool cannot be the oracle here');
});

test('sigop-dense outputs within the 34-byte limit: bare CHECKMULTISIGs price the transaction by sigops', async () => {
  // 34 × OP_CHECKMULTISIG per output: 680 legacy sigops, 2,720 cost each.
  const dense = 'ae'.repeat(34);
  const { parts: got, decoded, vsize } = await check(await pay(Array.from({ length: 3 }, () => ({ value: 1_000, scriptPubKey: dense }))));
  assert.deepEqual(got, parts(3 * 34 * 20 * 4, 0, 1));
  assert.ok(vsize > 50 * decoded.vsize, `adjusted ${vsize} vB vs plain ${decoded.vsize} vB`);
});

test('malformed and pushdata-laden output scripts: the count stops at a truncated push, as the node\'s does', async () => {
  const scripts = [
    'aeae4dff', // two CHECKMULTISIGs, then OP_PUSHDATA2 missing a length byte: 40
    '4c02aeaeae', // OP_PUSHDATA1 of two 0xae bytes, then one CHECKMULTISIG: 20
    '4e01000000aeac', // OP_PUSHDATA4 of one byte, then CHECKSIG: 1
    'ac05acacacac', // CHECKSIG, then a 5-byte push with 4 left: 1
    '4d0300aeaeaeae', // OP_PUSHDATA2 of three bytes, then CHECKMULTISIG: 20
    '60ae', // OP_16 CHECKMULTISIG: a scriptPubKey is counted inaccurately, 20
    'adaf', // CHECKSIGVERIFY, CHECKMULTISIGVERIFY: 21
  ];
  const { parts: got, decoded, vsize } = await check(await pay(scripts.map((scriptPubKey) => ({ value: 1_000, scriptPubKey }))));
  assert.deepEqual(got, parts((40 + 20 + 1 + 1 + 20 + 20 + 21) * 4, 0, 1));
  assert.ok(vsize > decoded.vsize);
});

test('spending bare multisig: the spent scriptPubKey is not counted again, the scriptSig has none', async () => {
  // Mined directly: this Knots keeps bare multisig outputs out of its mempool (see above), not out of blocks.
  const fundingHex = await pay(Array.from({ length: 3 }, () => ({ value: OUTPUT_SATS, scriptPubKey: multisig(1, pubkeys) })));
  await node.rpc.call('generateblock', [await node.address('bech32'), [fundingHex]]);
  const { parts: got } = await check(await spend(coinsOf(decodeTxHex(fundingHex), [{}, {}, {}])));
  assert.deepEqual(got, parts(0, 0, 0));
});

test('P2SH 2-of-3 multisig and P2SH-P2WPKH spends: redeemScripts counted accurately', async () => {
  const redeem = multisig(2, pubkeys);
  const wrappedKey = p2wpkh(pubkeys[0]!);
  const funding = await check(
    await pay([
      ...Array.from({ length: 3 }, () => ({ value: OUTPUT_SATS, scriptPubKey: p2sh(redeem) })),
      ...Array.from({ length: 2 }, () => ({ value: OUTPUT_SATS, scriptPubKey: p2sh(wrappedKey) })),
    ]),
  );
  assert.deepEqual(funding.parts, parts(0, 0, 1));
  const multisigSpend = await check(await spend(coinsOf(funding.decoded, [{ redeemScript: redeem }, { redeemScript: redeem }, { redeemScript: redeem }])));
  // OP_3 before CHECKMULTISIG: 3 per input, × 4.
  assert.deepEqual(multisigSpend.parts, parts(0, 3 * 3 * 4, 0));
  const wrappedSpend = await check(await spend(coinsOf(funding.decoded, [undefined, undefined, undefined, { redeemScript: wrappedKey }, { redeemScript: wrappedKey }])));
  assert.deepEqual(wrappedSpend.parts, parts(0, 0, 2));
});

test('P2WSH and P2SH-P2WSH 2-of-3 multisig spends: the witness script counts 3, unscaled', async () => {
  const script = multisig(2, pubkeys);
  const funding = await check(
    await pay([
      ...Array.from({ length: 2 }, () => ({ value: OUTPUT_SATS, scriptPubKey: p2wsh(script) })),
      ...Array.from({ length: 2 }, () => ({ value: OUTPUT_SATS, scriptPubKey: p2sh(p2wsh(script)) })),
    ]),
  );
  const native = { witnessScript: script };
  const wrapped = { witnessScript: script, redeemScript: p2wsh(script) };
  const { parts: got } = await check(await spend(coinsOf(funding.decoded, [native, native, wrapped, wrapped])));
  assert.deepEqual(got, parts(0, 0, 4 * 3));
});

test('sigop-heavy P2SH, P2WSH and P2SH-P2WSH spends: zero-key CHECKMULTISIGs count 20 each, and dominate the vsize', async () => {
  const funding = await check(
    await pay([
      ...Array.from({ length: 3 }, () => ({ value: OUTPUT_SATS, scriptPubKey: p2sh(HEAVY) })),
      ...Array.from({ length: 3 }, () => ({ value: OUTPUT_SATS, scriptPubKey: p2wsh(HEAVY) })),
      ...Array.from({ length: 3 }, () => ({ value: OUTPUT_SATS, scriptPubKey: p2sh(p2wsh(HEAVY)) })),
    ]),
  );
  const inP2sh = { scriptSig: push(HEAVY) };
  const inP2wsh = { witness: [HEAVY] };
  const inWrapped = { scriptSig: push(p2wsh(HEAVY)), witness: [HEAVY] };

  const p2shSpend = await check(await spend(coinsOf(funding.decoded, [inP2sh, inP2sh, inP2sh])));
  assert.deepEqual(p2shSpend.parts, parts(0, 3 * HEAVY_SIGOPS * 4, 0));
  assert.ok(p2shSpend.vsize > 5 * p2shSpend.decoded.vsize);

  const witnessSpend = await check(await spend(coinsOf(funding.decoded, [undefined, undefined, undefined, inP2wsh, inP2wsh, inP2wsh, inWrapped, inWrapped, inWrapped])));
  assert.deepEqual(witnessSpend.parts, parts(0, 0, 6 * HEAVY_SIGOPS));
  assert.ok(witnessSpend.vsize > witnessSpend.decoded.vsize);
});

test('wallet-built legacy, segwit v0 and taproot transactions', async () => {
  const legacy = await check((await node.buildTx({ feeRate: 2, addressType: 'legacy', inputs: 3, outputs: 5 })).hex);
  // P2PKH outputs count 1 each; the inputs' scriptSigs are pushes only.
  assert.deepEqual(legacy.parts, parts(legacy.decoded.outputs.length * 4, 0, 0));
  const segwit = await check((await node.buildTx({ feeRate: 2, addressType: 'bech32', inputs: 3, outputs: 5 })).hex);
  assert.deepEqual(segwit.parts, parts(0, 0, 3));
  const taproot = await check((await node.buildTx({ feeRate: 2, addressType: 'bech32m', inputs: 3, outputs: 5 })).hex);
  assert.deepEqual(taproot.parts, parts(0, 0, 0));
  for (const t of [legacy, segwit, taproot]) assert.equal(t.vsize, t.decoded.vsize, 'weight sets the vsize of ordinary transactions');
});
