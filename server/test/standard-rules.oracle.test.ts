import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { DEFAULT_BYTES_PER_SIGOP, sigopAdjustedVsize } from '@slipstream/mempool-engine/bitcoin/virtual-size';
import { freePort } from '../dev/bitcoin/node-launcher.ts';
import { poolNodeP2pArgs } from '../dev/bitcoin/policy-node.ts';
import { startTestPolicyNode, type TestPolicyNode } from './helpers/policy-node.ts';
import { compactSizeLength, writeCompactSize } from '../src/bitcoin/compact-size.ts';
import { type RpcClient } from '../src/bitcoin/rpc-client.ts';
import { transactionSigOpCost } from '../src/bitcoin/sigops.ts';
import { KNOTS_REASON_NAMES } from '../src/modules/policy/policy-verdicts.ts';
import { CORE_29, type RuleParameters } from '../src/bitcoin/standardness/policy-families.ts';
import { checkStandardRules, feeAt, RULE_SOURCES, type RuleVerdict } from '../src/bitcoin/standardness/standard-rules.ts';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import { OP_TRUE_P2WSH } from './helpers/keyless-spends.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { until } from './helpers/until.ts';

/**
 * The standardness rules module (src/bitcoin/standardness/standard-rules.ts)
 * against a real node: every transaction of a corpus of a few hundred is
 * judged by the module with Core 29's parameters and by the policy node
 * (Knots with `-corepolicy=1 -acceptnonstdtxn=0`, which runs Core 29's
 * policy), and the verdicts must be the same. The module's own unit test
 * checks each rule against the case Core's tests use; this one checks that
 * the module reads real transactions as a node does, at each limit and just
 * past it, in the order the node checks its rules.
 *
 * The module judges what comes before scripts. So a node refusing a
 * transaction for a script failure means every rule passed: the module must
 * say it relays. Refusals only Knots makes (an output script over 34 bytes,
 * an OP_IF in tapscript) are no Core 29 policy: they are counted apart and
 * listed in one assertion, so a new one fails the test loudly. Where Knots
 * only names a Core rule's refusal its own way (KNOTS_REASON_NAMES in policy-verdicts.ts), it is Core's.
 * The one parameter the node sets differently from Core 29 is the minimum
 * relay fee rate, taken from the node.
 *
 * Every input spends an output built for it by a funding transaction the
 * pool node mines (with `generateblock`, since this Knots refuses output
 * scripts over 34 bytes in its mempool whatever its flags; a block takes
 * them). Most need no key (OP_TRUE behind P2WSH, P2SH or taproot, pay-to-
 * anchor, unknown witness versions); a few are the wallet's, signed by it.
 * Corpus transactions are only judged, never sent, so they share coins.
 */

interface Coin {
  script: string;
  value: number;
  txid: string;
  vout: number;
}

interface Spend {
  coin: Coin;
  scriptSig?: string;
  witness?: string[];
}

interface Output {
  value: number;
  scriptPubKey: string;
}

interface Case {
  label: string;
  version?: number;
  inputs: Spend[];
  outputs: Output[];
  /**
   * Where what the inputs leave after the fee goes: by default a P2WSH
   * (OP_TRUE) output added last; 'none' when the outputs' values are the
   * whole story.
   */
  change?: 'none';
  /** Sats, or of the sigop-adjusted vsize; 2 sat/vB by default. */
  fee?: number | ((vsize: number) => number);
  /** Inputs the pool's wallet signs; `afterSigning` then edits the signed transaction. */
  sign?: boolean;
  afterSigning?: (hex: string) => string;
}

interface Judged {
  label: string;
  hex: string;
  verdict: RuleVerdict;
  vsize: number;
}

interface MempoolAccept {
  allowed?: boolean;
  vsize?: number;
  'reject-reason'?: string;
  'reject-details'?: string;
}

/** What every keyless coin is worth: enough for the largest corpus transaction's outputs and fees. */
const COIN_SATS = 1_000_000;
const ZERO_TXID = '00'.repeat(32);

// ---------------------------------------------------------------- scripts

const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const hash160 = (hex: string) => createHash('ripemd160').update(Buffer.from(sha256(hex), 'hex')).digest('hex');
const fill = (bytes: number, byte = 'ab') => byte.repeat(bytes);
const num = (n: number) => n.toLocaleString('en-US');

/** A script push of `data` (hex), with the shortest opcode for its length. */
function push(data: string): string {
  const n = data.length / 2;
  if (n < 0x4c) return n.toString(16).padStart(2, '0') + data;
  if (n <= 0xff) return `4c${n.toString(16).padStart(2, '0')}${data}`;
  return `4d${Buffer.from([n & 0xff, n >> 8]).toString('hex')}${data}`;
}

const p2sh = (redeem: string) => `a914${hash160(redeem)}87`;
const p2wsh = (script: string) => `0020${sha256(script)}`;
const P2A = '51024e73';
const opReturn = (dataBytes: number) => `6a${push(fill(dataBytes, 'cd'))}`;
/** A 33-byte compressed-looking key: Solver checks sizes and header bytes, not the curve. */
const key = (n: number, header = '02') => `${header}${sha256(n.toString(16).padStart(2, '0'))}`;
const uncompressedKey = (n: number, header = '04') => `${header}${sha256(`${n.toString(16).padStart(2, '0')}01`)}${sha256(`${n.toString(16).padStart(2, '0')}02`)}`;
const smallNumber = (n: number) => (n === 0 ? '00' : (0x50 + n).toString(16));
const multisig = (m: number, keys: string[]) => `${smallNumber(m)}${keys.map(push).join('')}${smallNumber(keys.length)}ae`;
const witnessV = (version: number, program: string) => `${smallNumber(version)}${push(program)}`;

/**
 * `OP_0 OP_IF <zeros> OP_ENDIF OP_1` of exactly `bytes` bytes: the zeros are
 * never run, so it is valid at any size and costs two opcodes.
 */
const fillerScript = (bytes: number) => `0063${'00'.repeat(bytes - 4)}6851`;
/** Drops `items` stack items, then leaves true: spends need `items` witness items before it. */
const dropScript = (items: number) => `${'6d'.repeat(Math.floor(items / 2))}${'75'.repeat(items % 2)}51`;
/** An empty CHECKMULTISIG (20 sigops, pushes true) then DROP, `times` times, then OP_1: sigops without signatures. */
const emptyMultisigs = (times: number) => `${'000000ae75'.repeat(times)}51`;
/** A CHECKSIG with an empty signature (false, no error: NULLFAIL allows an empty one), dropped: one sigop. */
const oneChecksig = `00${push(key(1))}ac75`;
/** P2SH redeem scripts of `n` accurately counted sigops that succeed: CHECKMULTISIG of 0 signatures and `n` (empty) keys. */
const multisigOfNothing = (n: number) => `0000${'00'.repeat(n)}${smallNumber(n)}ae`;

/**
 * Push-only scriptSig material of exactly `bytes` bytes in exactly `count`
 * minimal pushes (what a push of each length costs: 1 for an empty push,
 * 1 + n up to 75, 2 + n up to 255, 3 + n beyond). Pushes are of at most
 * 256 bytes: this Knots refuses a scriptSig's push of 520 (Core's limit),
 * and these scriptSigs are meant to pass every script check.
 */
function pushesOf(bytes: number, count: number): string[] | undefined {
  const largest = 259;
  const encodable = (size: number) => size === 1 || (size >= 2 && size <= 76) || (size >= 78 && size <= 257) || size === largest;
  const dataOf = (size: number) => (size === 1 ? 0 : size <= 76 ? size - 1 : size <= 257 ? size - 2 : size - 3);
  if (count === 1) return encodable(bytes) ? [push(fill(dataOf(bytes)))] : undefined;
  for (let size = Math.min(largest, bytes - (count - 1)); size >= 1; size--) {
    if (!encodable(size) || bytes - size > largest * (count - 1)) continue;
    const rest = pushesOf(bytes - size, count - 1);
    if (rest) return [push(fill(dataOf(size))), ...rest];
  }
  return undefined;
}

/** BIP 341's H: a point no one knows the discrete logarithm of, so only the script path spends. */
const NUMS_KEY = '50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0';

/** A taproot output committing to one leaf, and the control block that spends it. */
function taprootLeaf(leaf: string, leafVersion = 0xc0): { script: string; control: string } {
  const leafBytes = Buffer.from(leaf, 'hex');
  const size = Buffer.alloc(compactSizeLength(leafBytes.length));
  writeCompactSize(size, 0, leafBytes.length);
  const leafHash = schnorr.utils.taggedHash('TapLeaf', Buffer.concat([Buffer.from([leafVersion]), size, leafBytes]));
  const internal = Buffer.from(NUMS_KEY, 'hex');
  const tweak = BigInt(`0x${Buffer.from(schnorr.utils.taggedHash('TapTweak', Buffer.concat([internal, leafHash]))).toString('hex')}`);
  const { x, y } = schnorr.utils.lift_x(BigInt(`0x${NUMS_KEY}`)).add(secp256k1.Point.BASE.multiply(tweak)).toAffine();
  return { script: `5120${x.toString(16).padStart(64, '0')}`, control: Buffer.concat([Buffer.from([leafVersion | Number(y & 1n)]), internal]).toString('hex') };
}

/** `OP_FALSE OP_IF <data in pushes of 520 bytes> OP_ENDIF OP_TRUE`: an inscription's envelope, with no signature. */
const envelopeLeaf = (dataBytes: number) => `0063${Array.from({ length: Math.ceil(dataBytes / 520) }, (_, i) => push(fill(Math.min(520, dataBytes - 520 * i), 'ef'))).join('')}6851`;

// ---------------------------------------------------------------- the corpus

interface WalletScripts {
  p2wpkh: string;
  p2pkh: string;
  p2shP2wpkh: string;
  p2tr: string;
}

/** Every corpus transaction; `coin(script, n)` is the n-th coin paying `script`, funded before they are encoded. */
function corpus(coin: (script: string, n?: number) => Coin, wallet: WalletScripts, relayFeePerKvB: number): Case[] {
  const cases: Case[] = [];
  const add = (c: Case) => cases.push(c);

  const wshTrue = (n = 0): Spend => ({ coin: coin(OP_TRUE_P2WSH, n), witness: ['51'] });
  const shTrue = (n = 0): Spend => ({ coin: coin(p2sh('51'), n), scriptSig: push('51') });
  const anchor = (n = 0): Spend => ({ coin: coin(P2A, n), witness: [] });
  const wsh = (script: string, stack: string[] = [], n = 0): Spend => ({ coin: coin(p2wsh(script), n), witness: [...stack, script] });
  const sh = (redeem: string, pushes: string[] = []): Spend => ({ coin: coin(p2sh(redeem)), scriptSig: `${pushes.join('')}${push(redeem)}` });
  const shWsh = (script: string, stack: string[] = []): Spend => ({ coin: coin(p2sh(p2wsh(script))), scriptSig: push(p2wsh(script)), witness: [...stack, script] });
  const tap = (leaf: string, stack: string[] = [], leafVersion = 0xc0, annex?: string): Spend => {
    const { script, control } = taprootLeaf(leaf, leafVersion);
    return { coin: coin(script), witness: [...stack, leaf, control, ...(annex === undefined ? [] : [annex])] };
  };
  const plain = (spend: Spend, rest: Omit<Case, 'inputs' | 'outputs'> & { outputs?: Output[] }): Case => ({ inputs: [spend], outputs: [], ...rest });

  // Versions: 1..3 relay; 0, 4 and beyond, and the negative ones (read as signed) do not.
  const spenders: Array<[string, () => Spend]> = [['P2WSH', wshTrue], ['P2SH', shTrue], ['P2A', anchor]];
  for (const [name, spend] of spenders) {
    for (const version of [0, 1, 2, 3, 4, 5, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff]) {
      add(plain(spend(), { label: `version ${version > 5 ? `0x${version.toString(16)}` : version} spending ${name}`, version }));
    }
  }

  // Every kind of output, one at a time.
  const hash20 = fill(20, '11');
  const hash32 = fill(32, '22');
  const outputKinds: Array<[string, string, number]> = [
    ['P2PKH', `76a914${hash20}88ac`, 10_000],
    ['P2SH', `a914${hash20}87`, 10_000],
    ['P2WPKH', `0014${hash20}`, 10_000],
    ['P2WSH', `0020${hash32}`, 10_000],
    ['P2TR', `5120${hash32}`, 10_000],
    ['P2A', P2A, 10_000],
    ['P2PK, compressed key 02', `${push(key(1))}ac`, 10_000],
    ['P2PK, compressed key 03', `${push(key(1, '03'))}ac`, 10_000],
    ['P2PK, uncompressed key', `${push(uncompressedKey(1))}ac`, 10_000],
    ['P2PK, hybrid key 06', `${push(uncompressedKey(1, '06'))}ac`, 10_000],
    ['P2PK-like, a 33-byte key with header 04', `${push(key(1, '04'))}ac`, 10_000],
    ['P2PK-like, a 33-byte key with header 05', `${push(key(1, '05'))}ac`, 10_000],
    ['P2PK with OP_CHECKSIGVERIFY', `${push(key(1))}ad`, 10_000],
    ...[1, 2, 3].flatMap((n) => Array.from({ length: n }, (_, i) => i + 1).map((m): [string, string, number] => [`bare multisig ${m}-of-${n}`, multisig(m, [1, 2, 3].slice(0, n).map((k) => key(k))), 10_000])),
    ['bare multisig 1-of-4', multisig(1, [1, 2, 3, 4].map((k) => key(k))), 10_000],
    ['bare multisig 2-of-4', multisig(2, [1, 2, 3, 4].map((k) => key(k))), 10_000],
    ['bare multisig 1-of-2 with an uncompressed key', multisig(1, [key(1), uncompressedKey(2)]), 10_000],
    ['bare multisig 0-of-1', multisig(0, [key(1)]), 10_000],
    ['bare multisig 2-of-1', `52${push(key(1))}51ae`, 10_000],
    ['bare multisig with a bad key size', multisig(1, [fill(32, '02')]), 10_000],
    ['empty script', '', 10_000],
    ['OP_0 alone', '00', 10_000],
    ['OP_TRUE alone', '51', 10_000],
    ['OP_CHECKSIG alone', 'ac', 10_000],
    ['P2PKH with OP_CHECKSIGVERIFY', `76a914${hash20}88ad`, 10_000],
    ['P2SH with OP_EQUALVERIFY', `a914${hash20}88`, 10_000],
    ['a push of 33 bytes then OP_DROP', `${push(key(1))}75`, 10_000],
    ['v0 program of 1 byte', witnessV(0, '33'), 10_000],
    ['v0 program of 19 bytes', witnessV(0, fill(19, '33')), 10_000],
    ['v0 program of 21 bytes', witnessV(0, fill(21, '33')), 10_000],
    ['v0 program of 31 bytes', witnessV(0, fill(31, '33')), 10_000],
    ['v0 program of 33 bytes', witnessV(0, fill(33, '33')), 10_000],
    ['v0 program of 40 bytes', witnessV(0, fill(40, '33')), 10_000],
    ['v1 program of 2 bytes (not an anchor)', witnessV(1, 'abcd'), 10_000],
    ['v1 program of 20 bytes', witnessV(1, hash20), 10_000],
    ['v1 program of 40 bytes', witnessV(1, fill(40, '44')), 10_000],
    ['v2 program of 2 bytes', witnessV(2, 'abcd'), 10_000],
    ['v2 program of 40 bytes', witnessV(2, fill(40, '44')), 10_000],
    ['v2 "program" of 41 bytes (not a program)', witnessV(2, fill(41, '44')), 10_000],
    ['v16 program of 2 bytes', witnessV(16, 'abcd'), 10_000],
    ['a program whose version is a push, not OP_n', `01${push(hash32)}`, 10_000],
    ...Array.from({ length: 15 }, (_, i): [string, string, number] => [`v${i + 2} program of 32 bytes`, witnessV(i + 2, hash32), 10_000]),
  ];
  for (const [name, script, value] of outputKinds) add(plain(wshTrue(), { label: `output: ${name}`, outputs: [{ value, scriptPubKey: script }] }));

  // OP_RETURN: Core 29 relays one, of at most 83 bytes of script.
  add(plain(wshTrue(), { label: 'OP_RETURN alone', outputs: [{ value: 0, scriptPubKey: '6a' }] }));
  for (let data = 0; data <= 81; data++) add(plain(wshTrue(), { label: `OP_RETURN of ${data} data bytes (${opReturn(data).length / 2}-byte script)`, outputs: [{ value: 0, scriptPubKey: opReturn(data) }] }));
  const dataKinds: Array<[string, string, number?]> = [
    ['OP_RETURN with a non-minimal OP_PUSHDATA1 of 5 bytes', `6a4c05${fill(5)}`],
    ['OP_RETURN with OP_PUSHDATA1 of 80 bytes (83-byte script)', `6a4c50${fill(80)}`],
    ['OP_RETURN with OP_PUSHDATA2 of 79 bytes (83-byte script)', `6a4d4f00${fill(79)}`],
    ['OP_RETURN with OP_PUSHDATA2 of 80 bytes (84-byte script)', `6a4d5000${fill(80)}`],
    ['OP_RETURN OP_1NEGATE', '6a4f'],
    ['OP_RETURN OP_RESERVED', '6a50'],
    ['OP_RETURN OP_1', '6a51'],
    ['OP_RETURN OP_16', '6a60'],
    ['OP_RETURN with several pushes', `6a${push(fill(10))}${push(fill(20))}5a`],
    ['OP_RETURN OP_NOP (not push-only)', '6a61'],
    ['OP_RETURN OP_RETURN', '6a6a'],
    ['OP_RETURN with a push running past the end', `6a05${fill(3)}`],
    ['OP_RETURN worth 1,000 sats', `6a${push(fill(8))}`, 1_000],
  ];
  for (const [name, script, value = 0] of dataKinds) add(plain(wshTrue(), { label: `output: ${name}`, outputs: [{ value, scriptPubKey: script }] }));
  for (const [name, scripts] of [
    ['two bare OP_RETURNs', ['6a', '6a']],
    ['two OP_RETURNs of 10 bytes', [opReturn(10), opReturn(10)]],
    ['three OP_RETURNs of 1 byte', [opReturn(1), opReturn(1), opReturn(1)]],
    ['an OP_RETURN of 80 bytes and one of 0', [opReturn(80), opReturn(0)]],
    ['two OP_RETURNs and a dust output', ['6a', '6a', `0014${hash20}`]],
    ['two OP_RETURNs and a non-standard output', ['6a', '6a', '00']],
  ] as const) {
    add(plain(wshTrue(), { label: `outputs: ${name}`, outputs: scripts.map((s) => ({ value: s.startsWith('6a') ? 0 : 1, scriptPubKey: s })) }));
  }

  // Dust: GetDustThreshold at 3,000 sat/kvB, one output at, one below, two below; a 0-fee one waits for a child.
  const dustKinds: Array<[string, string, number]> = [
    ['P2PKH', `76a914${hash20}88ac`, 546],
    ['P2SH', `a914${hash20}87`, 540],
    ['P2WPKH', `0014${hash20}`, 294],
    ['P2WSH', `0020${hash32}`, 330],
    ['P2TR', `5120${hash32}`, 330],
    ['P2A', P2A, 240],
    ['v2 program of 32 bytes', witnessV(2, hash32), 330],
    ['v16 program of 2 bytes', witnessV(16, 'abcd'), 240],
  ];
  for (const [name, script, threshold] of dustKinds) {
    for (const value of [threshold + 1, threshold, threshold - 1, 0]) add(plain(wshTrue(), { label: `dust: one ${name} of ${value} sats (threshold ${threshold})`, outputs: [{ value, scriptPubKey: script }] }));
    add(plain(wshTrue(), { label: `dust: two ${name} of ${threshold - 1} sats`, outputs: [0, 1].map(() => ({ value: threshold - 1, scriptPubKey: script })) }));
    add(plain(wshTrue(), { label: `dust: two ${name} of ${threshold} sats`, outputs: [0, 1].map(() => ({ value: threshold, scriptPubKey: script })) }));
  }
  add(plain(wshTrue(), { label: 'dust: one P2WPKH of 1 sat and a 0-fee transaction', outputs: [{ value: 1, scriptPubKey: `0014${hash20}` }], fee: 0 }));
  add(plain(wshTrue(), { label: 'dust: a 0-sat P2A on a 0-fee TRUC transaction, no child', version: 3, outputs: [{ value: 0, scriptPubKey: P2A }], fee: 0 }));
  add(plain(wshTrue(), { label: 'dust: a 0-sat P2A on a TRUC transaction paying its fee', version: 3, outputs: [{ value: 0, scriptPubKey: P2A }] }));
  add(plain(wshTrue(), { label: 'dust: two 0-sat P2As on a 0-fee TRUC transaction', version: 3, outputs: [{ value: 0, scriptPubKey: P2A }, { value: 0, scriptPubKey: P2A }], fee: 0 }));

  // tx-size-small: 65 bytes without witness is the least relayed. One input without scriptSig and one output is 60 bytes plus the output script.
  for (const [name, spend, script] of [
    ['P2WSH spend, a 4-byte OP_RETURN (64 bytes)', wshTrue, '6a02ffff'],
    ['P2WSH spend, a 5-byte OP_RETURN (65 bytes)', wshTrue, '6a03ffffff'],
    ['P2WSH spend, a 3-byte OP_RETURN (63 bytes)', wshTrue, '6a01ff'],
    ['P2WSH spend, a P2A output (64 bytes)', wshTrue, P2A],
    ['P2WSH spend, a 2-byte v16 program (64 bytes)', wshTrue, witnessV(16, 'abcd')],
    ['P2A spend, a P2A output (64 bytes)', anchor, P2A],
    ['P2A spend, a 5-byte OP_RETURN (65 bytes)', anchor, '6a03ffffff'],
    ['P2SH spend (2-byte scriptSig), a 3-byte OP_RETURN (65 bytes)', shTrue, '6a01ff'],
    ['P2SH spend (2-byte scriptSig), a 2-byte OP_RETURN (64 bytes)', shTrue, '6a00'],
    ['P2SH spend (2-byte scriptSig), a bare OP_RETURN (63 bytes)', shTrue, '6a'],
  ] as const) {
    add(plain(spend(), { label: `size: ${name}`, outputs: [{ value: script.startsWith('6a') ? 0 : 100_000, scriptPubKey: script }], change: 'none' }));
  }

  // scriptSigs: at most 1,650 bytes, push-only.
  for (const bytes of [1_600, 1_649, 1_650, 1_651, 1_652, 1_700]) {
    let spend: Spend | undefined;
    for (let count = 1; count < 12 && !spend; count++) {
      const redeem = dropScript(count);
      const pushes = pushesOf(bytes - push(redeem).length / 2, count);
      if (pushes) spend = sh(redeem, pushes);
    }
    assert.ok(spend, `a scriptSig of ${bytes} bytes`);
    assert.equal(spend.scriptSig!.length / 2, bytes);
    add(plain(spend, { label: `scriptSig of ${num(bytes)} bytes (P2SH dropping its pushes)` }));
  }
  for (const bytes of [1_650, 1_651]) {
    // The same size on an OP_TRUE redeem script: the pushes stay on the stack (a script failure, CLEANSTACK) once the size rule passes.
    const pushes = pushesOf(bytes - 2, 7)!;
    add(plain({ coin: coin(p2sh('51')), scriptSig: `${pushes.join('')}${push('51')}` }, { label: `scriptSig of ${num(bytes)} bytes leaving its pushes on the stack` }));
  }
  add(plain({ ...wshTrue(), scriptSig: pushesOf(1_650, 7)!.join('') }, { label: 'scriptSig of 1,650 bytes on a P2WSH spend' }));
  add(plain({ ...wshTrue(), scriptSig: pushesOf(1_651, 7)!.join('') }, { label: 'scriptSig of 1,651 bytes on a P2WSH spend' }));
  for (const [name, scriptSig] of [
    ['OP_NOP before the push', `61${push('51')}`],
    ['OP_NOP after the push', `${push('51')}61`],
    ['OP_CODESEPARATOR before the push', `ab${push('51')}`],
    ['OP_DUP after the push', `${push('51')}76`],
    ['OP_RESERVED before the push (push-only, but no P2SH stack)', `50${push('51')}`],
    ['OP_1NEGATE before the push', `4f${push('51')}`],
    ['OP_16 before the push', `60${push('51')}`],
    ['a non-minimal OP_PUSHDATA1 of the redeem script', `4c0151`],
    ['a push running past the end', `${push('51')}05ab`],
    ['nothing', ''],
  ] as const) {
    add(plain({ coin: coin(p2sh('51')), scriptSig }, { label: `P2SH scriptSig: ${name}` }));
  }
  add(plain({ ...wshTrue(), scriptSig: '61' }, { label: 'P2WSH spend with an OP_NOP scriptSig' }));
  add(plain({ ...anchor(), scriptSig: push('51') }, { label: 'P2A spend with a push-only scriptSig' }));

  // Spent outputs: standard types only, P2SH redeem scripts of at most 15 sigops.
  for (const [name, script] of [
    ['bare OP_TRUE', '51'],
    ['OP_CHECKSIG alone', 'ac'],
    ['v0 program of 21 bytes', witnessV(0, fill(21, '33'))],
    ['v1 program of 20 bytes', witnessV(1, hash20)],
    ['v1 program of 2 bytes (not an anchor)', witnessV(1, 'abcd')],
    ...Array.from({ length: 15 }, (_, i): [string, string] => [`v${i + 2} program of 32 bytes`, witnessV(i + 2, hash32)]),
    ['v16 program of 2 bytes', witnessV(16, 'abcd')],
  ] as const) {
    add(plain({ coin: coin(script), witness: [] }, { label: `spends: ${name}` }));
  }
  add(plain({ coin: coin(witnessV(2, hash32)), witness: ['51'] }, { label: 'spends: v2 program of 32 bytes, with a witness' }));
  add({ label: 'spends: P2WSH(OP_TRUE) and bare OP_TRUE', inputs: [wshTrue(), { coin: coin('51'), witness: [] }], outputs: [] });
  for (const n of [14, 15, 16, 20]) {
    add(plain(sh(multisigOfNothing(n)), { label: `P2SH redeem script of ${n} sigops (CHECKMULTISIG of nothing)` }));
    add(plain(sh('ac'.repeat(n)), { label: `P2SH redeem script of ${n} OP_CHECKSIGs (fails)` }));
  }
  const fourteenPlusOne = `${multisigOfNothing(14)}75${oneChecksig}51`;
  add(plain(sh(fourteenPlusOne), { label: 'P2SH redeem script of 14 + 1 sigops (fails: its empty signature is in its own script)' }));
  add(plain(sh(`${fourteenPlusOne}75${oneChecksig}51`), { label: 'P2SH redeem script of 14 + 2 sigops' }));
  add(plain(sh(multisigOfNothing(15)), { label: 'P2SH redeem script of 15 sigops, paying the minimum for a third of its vsize', fee: (vsize) => feeAt(relayFeePerKvB, Math.ceil(vsize / 3)) }));
  add({ label: 'two P2SH inputs of 15 sigops each', inputs: [sh(multisigOfNothing(15)), { ...sh(multisigOfNothing(15)), coin: coin(p2sh(multisigOfNothing(15)), 1) }], outputs: [] });
  add(plain(sh(`${multisigOfNothing(15)}`, ['00']), { label: 'P2SH redeem script of 15 sigops behind an extra push' }));

  // Witnesses: P2WSH scripts of 3,600 bytes, 100 items of 80 bytes; tapscript items of 80 bytes; none where no program asks.
  for (const bytes of [0, 1, 79, 80, 81, 520]) add(plain(wsh(dropScript(1), [fill(bytes)]), { label: `P2WSH witness item of ${bytes} bytes` }));
  for (const bytes of [80, 81]) add(plain(shWsh(dropScript(1), [fill(bytes)]), { label: `P2SH-P2WSH witness item of ${bytes} bytes` }));
  for (const items of [99, 100, 101, 102]) add(plain(wsh(dropScript(items), Array.from({ length: items }, () => '01')), { label: `P2WSH with ${items} witness items before the script` }));
  add(plain(shWsh(dropScript(101), Array.from({ length: 101 }, () => '01')), { label: 'P2SH-P2WSH with 101 witness items before the script' }));
  add(plain(wsh(`0063${'00'.repeat(3_546)}68${dropScript(100)}`, Array.from({ length: 100 }, () => fill(80))), { label: 'P2WSH at every limit: 100 items of 80 bytes, a 3,600-byte script' }));
  add(plain({ coin: coin(`0014${hash20}`), witness: [fill(81, '30'), key(1)] }, { label: 'P2WPKH spent with an 81-byte made-up signature (fails)' }));
  add(plain({ coin: coin(p2sh('51')), scriptSig: `${push(fill(521))}${push('51')}` }, { label: 'P2SH scriptSig pushing 521 bytes' }));
  for (const bytes of [3_599, 3_600, 3_601, 4_000]) add(plain(wsh(fillerScript(bytes)), { label: `P2WSH script of ${num(bytes)} bytes` }));
  add(plain(shWsh(fillerScript(3_601)), { label: 'P2SH-P2WSH script of 3,601 bytes' }));
  add(plain(shWsh('51'), { label: 'P2SH-P2WSH of OP_TRUE' }));
  add(plain({ ...wshTrue(), witness: [] }, { label: 'P2WSH spent with an empty witness (fails)' }));
  add(plain({ ...wshTrue(), witness: ['00'] }, { label: 'P2WSH spent with the wrong script (fails)' }));
  add(plain({ ...shTrue(), witness: ['51'] }, { label: 'witness on a P2SH(OP_TRUE) input' }));
  add(plain({ coin: coin('51'), witness: ['51'] }, { label: 'witness on a bare OP_TRUE input' }));
  add(plain({ coin: coin(`76a914${hash20}88ac`), scriptSig: `${push(fill(71, '30'))}${push(key(1))}`, witness: ['01'] }, { label: 'witness on a P2PKH input' }));
  add(plain({ coin: coin(`76a914${hash20}88ac`), scriptSig: `${push(fill(71, '30'))}${push(key(1))}` }, { label: 'P2PKH spent with a made-up signature (fails)' }));
  add(plain({ coin: coin(`${push(key(1))}ac`), scriptSig: push(fill(71, '30')) }, { label: 'P2PK spent with a made-up signature (fails)' }));
  add(plain({ coin: coin(multisig(1, [key(1)])), scriptSig: `00${push(fill(71, '30'))}` }, { label: 'bare 1-of-1 multisig spent with a made-up signature (fails)' }));
  add(plain({ coin: coin(multisig(1, [key(1)])), scriptSig: `00${push(fill(71, '30'))}`, witness: ['01'] }, { label: 'witness on a bare multisig input' }));
  add(plain({ coin: coin(`0014${hash20}`), witness: [fill(71, '30'), key(1)] }, { label: 'P2WPKH spent with a made-up signature (fails)' }));
  add(plain({ ...anchor(), witness: ['51'] }, { label: 'P2A spent with a one-item witness' }));
  add(plain({ ...anchor(), witness: [''] }, { label: 'P2A spent with one empty witness item' }));
  add({ label: 'two P2A inputs, one with a witness', inputs: [anchor(0), { ...anchor(1), witness: ['01'] }], outputs: [] });

  // Taproot script paths: tapscript stack items of at most 80 bytes, no annex; other leaf versions unlimited.
  add(plain(tap('51'), { label: 'taproot script path, OP_TRUE leaf' }));
  for (const bytes of [0, 80, 81, 520]) add(plain(tap(dropScript(1), [fill(bytes)]), { label: `tapscript stack item of ${bytes} bytes` }));
  add(plain(tap(dropScript(2), [fill(80), fill(81)]), { label: 'tapscript stack items of 80 and 81 bytes' }));
  add(plain(tap('51', [], 0xc0, '50'), { label: 'taproot script path with an annex' }));
  add(plain(tap('51', [], 0xc0, '50ab'), { label: 'taproot script path with a 2-byte annex' }));
  add(plain(tap(dropScript(1), [fill(81)], 0xc2), { label: 'leaf version 0xc2, stack item of 81 bytes' }));
  add(plain(tap('51', [], 0xc2), { label: 'leaf version 0xc2, OP_TRUE' }));
  add(plain({ coin: coin(taprootLeaf('51').script), witness: [fill(64)] }, { label: 'taproot key path with a made-up signature (fails)' }));
  add(plain({ coin: coin(taprootLeaf('51').script), witness: [fill(64), '50'] }, { label: 'taproot key path with an annex' }));
  add(plain({ coin: coin(taprootLeaf('51').script), witness: [`50${fill(63)}`] }, { label: 'taproot key path, a made-up signature starting 0x50 (no annex: one item)' }));
  add(plain({ coin: coin(taprootLeaf('51').script), witness: [] }, { label: 'taproot spent with an empty witness (fails)' }));
  add(plain({ coin: coin(taprootLeaf('51').script), witness: ['51', ''] }, { label: 'taproot script path with an empty control block' }));
  add(plain({ coin: coin(p2sh(taprootLeaf('51').script)), scriptSig: push(taprootLeaf('51').script), witness: [fill(81), '51', taprootLeaf('51').control] }, { label: 'P2SH-wrapped v1 program with an 81-byte item' }));
  add(plain(tap(envelopeLeaf(1_000)), { label: 'tapscript envelope of 1,000 bytes' }));

  // Fees: the node's minimum relay fee rate (of the sigop-adjusted vsize) is the least relayed; also Core 29's 1 sat/vB where the node's differs.
  const feeShapes: Array<[string, () => Case]> = [
    ['P2WSH spend', () => plain(wshTrue(), { label: '' })],
    ['P2SH spend', () => plain(shTrue(), { label: '' })],
    ['P2A spend', () => plain(anchor(), { label: '' })],
    ['version 1', () => plain(wshTrue(), { label: '', version: 1 })],
    ['TRUC', () => plain(wshTrue(), { label: '', version: 3 })],
    ['P2SH spend of 15 sigops (priced by sigops)', () => plain(sh(multisigOfNothing(15)), { label: '' })],
    ['P2WSH spend of 100 sigops (priced by sigops)', () => plain(wsh(emptyMultisigs(5)), { label: '' })],
    ['two inputs and a 40-byte OP_RETURN', () => ({ label: '', inputs: [wshTrue(0), shTrue(0)], outputs: [{ value: 0, scriptPubKey: opReturn(40) }] })],
  ];
  const signed = (n: number) => (n < 0 ? `${n}` : `+${n}`);
  for (const [name, shape] of feeShapes) {
    for (const delta of [-1, 0, 1]) add({ ...shape(), label: `fee: ${name}, the minimum ${signed(delta)} sats`, fee: (vsize) => feeAt(relayFeePerKvB, vsize) + delta });
    if (relayFeePerKvB !== 1_000) for (const delta of [-1, 0]) add({ ...shape(), label: `fee: ${name}, 1 sat/vB ${signed(delta)} sats`, fee: (vsize) => vsize + delta });
  }
  add(plain(wshTrue(), { label: 'fee: nothing', fee: 0 }));

  // Weight: at most 400,000 WU; TRUC: at most 10,000 vB (by weight or by sigops).
  for (const weight of [399_999, 400_000, 400_001]) add(paddedToWeight(weight, 2, `weight ${num(weight)} WU`));
  add(paddedToWeight(400_001, 3, 'TRUC of 400,001 WU'));
  for (const [weight, version] of [[39_999, 3], [40_000, 3], [40_001, 3], [40_004, 3], [40_001, 2]] as const) {
    add(paddedToWeight(weight, version, `${version === 3 ? 'TRUC' : 'version 2'} of ${num(weight)} WU (${num(Math.ceil(weight / 4))} vB)`));
  }
  for (const version of [2, 3]) {
    add({ label: `version ${version} of 2,000 sigop cost (10,000 vB)`, version, inputs: [wsh(emptyMultisigs(50), [], 0), wsh(emptyMultisigs(50), [], 1)], outputs: [] });
    add({ label: `version ${version} of 2,001 sigop cost (10,005 vB)`, version, inputs: [wsh(emptyMultisigs(50)), wsh(`${oneChecksig}${emptyMultisigs(50)}`)], outputs: [] });
  }

  // Sigops: a cost of at most 16,000 (2,000 per input here).
  const heavy = (n: number) => wsh(emptyMultisigs(100), [], n);
  add({ label: 'sigop cost 16,000', inputs: Array.from({ length: 8 }, (_, n) => heavy(n)), outputs: [] });
  add({ label: 'sigop cost 16,001', inputs: [...Array.from({ length: 8 }, (_, n) => heavy(n)), wsh(`${oneChecksig}51`)], outputs: [] });
  add({ label: 'sigop cost 18,000', inputs: Array.from({ length: 9 }, (_, n) => heavy(n)), outputs: [] });
  add({ label: 'sigop cost 18,000 and a P2SH of 16', inputs: [...Array.from({ length: 9 }, (_, n) => heavy(n)), sh(multisigOfNothing(16))], outputs: [] });
  add({ label: 'sigop cost 16,000 (80,000 vB), 1 sat/vB − 1 sat', inputs: Array.from({ length: 8 }, (_, n) => heavy(n)), outputs: [], fee: (vsize) => vsize - 1 });

  // The order the node checks in: the first refusal is the one reported.
  add(plain(wshTrue(), { label: 'order: version 4 and a non-standard output', version: 4, outputs: [{ value: 1_000, scriptPubKey: '00' }] }));
  add(plain({ ...wshTrue(), scriptSig: '61' }, { label: 'order: non-push-only scriptSig and two OP_RETURNs', outputs: [{ value: 0, scriptPubKey: '6a' }, { value: 0, scriptPubKey: '6a' }] }));
  add(plain(anchor(), { label: 'order: a dust output and tx-size-small', outputs: [{ value: 1, scriptPubKey: P2A }], change: 'none' }));
  add(plain({ coin: coin('51'), witness: ['51'] }, { label: 'order: non-standard input, 0 fee', fee: 0 }));
  add(plain({ ...anchor(), witness: ['51'] }, { label: 'order: P2A with a witness, 0 fee', fee: 0 }));
  add(plain(wsh(dropScript(1), [fill(81)]), { label: 'order: 81-byte witness item and a dust output', outputs: [{ value: 1, scriptPubKey: P2A }] }));
  add(plain(tap('51'), { label: 'order: TRUC of 0 fee', version: 3, fee: 0 }));
  add(plain(sh(multisigOfNothing(16)), { label: 'order: P2SH of 16 sigops, 0 fee', fee: 0 }));

  add(paddedToWeight(40_004, 3, 'order: TRUC of 10,001 vB with a dust output', [{ value: 1, scriptPubKey: P2A }]));
  add({ label: 'order: sigop cost 18,000, 0 fee', inputs: Array.from({ length: 9 }, (_, n) => heavy(n)), outputs: [], fee: 0 });
  add({ label: 'order: a witness on a P2A input, then a non-standard input', inputs: [{ ...anchor(), witness: ['01'] }, { coin: coin('51'), witness: [] }], outputs: [] });
  add({ label: 'order: a non-push-only scriptSig, then one over 1,650 bytes', inputs: [{ ...shTrue(0), scriptSig: `61${push('51')}` }, { ...shTrue(1), scriptSig: `${pushesOf(1_700, 7)!.join('')}${push('51')}` }], outputs: [] });
  add({ label: 'order: a scriptSig over 1,650 bytes, then a non-push-only one', inputs: [{ ...shTrue(0), scriptSig: `${pushesOf(1_700, 7)!.join('')}${push('51')}` }, { ...shTrue(1), scriptSig: `61${push('51')}` }], outputs: [] });
  add(plain(wshTrue(), { label: 'order: two OP_RETURNs and two dust outputs', outputs: [{ value: 0, scriptPubKey: '6a' }, { value: 0, scriptPubKey: '6a' }, { value: 1, scriptPubKey: P2A }, { value: 1, scriptPubKey: P2A }] }));
  add({
    label: 'a coinbase',
    inputs: [{ coin: { script: '', value: 0, txid: ZERO_TXID, vout: 0xffff_ffff }, scriptSig: '0101' }],
    outputs: [{ value: 5_000_000_000, scriptPubKey: OP_TRUE_P2WSH }],
    change: 'none',
  });

  // Ordinary wallet spends, signed by the pool's wallet.
  const walletCoin = (script: string) => ({ coin: coin(script) });
  const walletSigned = (c: Omit<Case, 'sign' | 'fee'>): Case => ({ ...c, sign: true, fee: 5_000 });
  add(walletSigned({ label: 'wallet P2WPKH spend', inputs: [walletCoin(wallet.p2wpkh)], outputs: [] }));
  add(walletSigned({ label: 'wallet P2PKH spend', inputs: [walletCoin(wallet.p2pkh)], outputs: [] }));
  add(walletSigned({ label: 'wallet P2SH-P2WPKH spend', inputs: [walletCoin(wallet.p2shP2wpkh)], outputs: [] }));
  add(walletSigned({ label: 'wallet P2TR key-path spend', inputs: [walletCoin(wallet.p2tr)], outputs: [] }));
  add(walletSigned({ label: 'wallet spend of all four kinds', inputs: [walletCoin(wallet.p2wpkh), walletCoin(wallet.p2pkh), walletCoin(wallet.p2shP2wpkh), walletCoin(wallet.p2tr)], outputs: [] }));
  add(walletSigned({ label: 'wallet P2WPKH spend, version 1', version: 1, inputs: [walletCoin(wallet.p2wpkh)], outputs: [] }));
  add(walletSigned({ label: 'wallet P2WPKH spend, version 4', version: 4, inputs: [walletCoin(wallet.p2wpkh)], outputs: [] }));
  add(walletSigned({ label: 'wallet P2WPKH spend with a P2WPKH of 293 sats', inputs: [walletCoin(wallet.p2wpkh)], outputs: [{ value: 293, scriptPubKey: `0014${hash20}` }] }));
  add(walletSigned({ label: 'wallet P2WPKH spend with an OP_RETURN of 80 bytes', inputs: [walletCoin(wallet.p2wpkh)], outputs: [{ value: 0, scriptPubKey: opReturn(80) }] }));
  add(walletSigned({ label: 'wallet P2PKH spend with OP_NOP before its signature', inputs: [walletCoin(wallet.p2pkh)], outputs: [], afterSigning: (hex) => editScriptSig(hex, (s) => `61${s}`) }));
  add(walletSigned({ label: 'wallet P2PKH spend with an extra push before its signature', inputs: [walletCoin(wallet.p2pkh)], outputs: [], afterSigning: (hex) => editScriptSig(hex, (s) => `51${s}`) }));
  add(walletSigned({ label: 'wallet P2PKH spend with a witness added', inputs: [walletCoin(wallet.p2pkh)], outputs: [], afterSigning: (hex) => editWitness(hex, ['01']) }));
  add(walletSigned({ label: 'wallet P2WPKH spend with a third witness item', inputs: [walletCoin(wallet.p2wpkh)], outputs: [], afterSigning: (hex) => editWitness(hex, [...decodeTxHex(hex).inputs[0]!.witness, '01']) }));

  return cases;

  /**
   * A transaction of exactly `weight` WU: P2WSH(OP_TRUE) outputs of 330
   * sats set it to within 172 WU, then an OP_RETURN's length (4 WU a byte)
   * and a witness item's (1 WU a byte) to the unit.
   */
  function paddedToWeight(weight: number, version: number, label: string, extra: Output[] = []): Case {
    const make = (outputs: number, dataBytes: number, itemBytes: number): Case => ({
      label,
      version,
      inputs: [wsh(dropScript(1), [fill(itemBytes)]), wshTrue(1)],
      outputs: [...extra, ...Array.from({ length: outputs }, () => ({ value: 330, scriptPubKey: OP_TRUE_P2WSH })), { value: 0, scriptPubKey: opReturn(dataBytes) }],
    });
    let outputs = Math.max(0, Math.floor((weight - 1_200) / 172));
    for (let attempt = 0; attempt < 20; attempt++) {
      const left = weight - encode(make(outputs, 0, 0)).weight;
      if (left < 0) outputs -= Math.max(1, Math.ceil(-left / 172));
      else if (left > 372) outputs += Math.max(1, Math.floor((left - 200) / 172));
      else {
        const dataBytes = Math.min(75, Math.floor(left / 4));
        const padded = make(outputs, dataBytes, left - 4 * dataBytes);
        assert.equal(encode(padded).weight, weight, label);
        return padded;
      }
    }
    throw new Error(`Cannot pad to ${weight} WU`);
  }
}

function editScriptSig(hex: string, edit: (scriptSig: string) => string): string {
  const tx = decodeTxHex(hex);
  return encodeTxHex({ ...tx, inputs: tx.inputs.map((input) => ({ ...input, scriptSig: edit(input.scriptSig) })) });
}

function editWitness(hex: string, witness: string[]): string {
  const tx = decodeTxHex(hex);
  return encodeTxHex({ ...tx, inputs: tx.inputs.map((input, i) => (i === 0 ? { ...input, witness } : input)) });
}

/** The case as a transaction, the change paying what the inputs leave after its fee. */
function encode(c: Case): ReturnType<typeof decodeTxHex> & { hex: string } {
  const change = c.change === 'none' ? [] : [{ value: 0, scriptPubKey: OP_TRUE_P2WSH }];
  const draft = {
    version: c.version ?? 2,
    locktime: 0,
    inputs: c.inputs.map((s) => ({ txid: s.coin.txid, vout: s.coin.vout, scriptSig: s.scriptSig ?? '', sequence: 0xffff_fffd, witness: s.witness ?? [] })),
    outputs: [...c.outputs, ...change],
  };
  if (c.change !== 'none') {
    // Values do not change sizes: the fee is known from the draft.
    const decoded = decodeTxHex(encodeTxHex(draft));
    const fee = typeof c.fee === 'number' ? c.fee : (c.fee ?? ((v: number) => 2 * v))(vsizeOf(decoded, c.inputs.map((s) => s.coin.script)));
    const left = c.inputs.reduce((a, s) => a + s.coin.value, 0) - c.outputs.reduce((a, o) => a + o.value, 0) - fee;
    draft.outputs[draft.outputs.length - 1] = { value: left, scriptPubKey: OP_TRUE_P2WSH };
  }
  const hex = encodeTxHex(draft);
  return { ...decodeTxHex(hex), hex };
}

/** The sigop-adjusted virtual size the node prices by (policy.cpp GetVirtualTransactionSize, -bytespersigop 20). */
function vsizeOf(tx: ReturnType<typeof decodeTxHex>, prevoutScripts: string[]): number {
  return sigopAdjustedVsize(tx.weight, transactionSigOpCost(tx, prevoutScripts), DEFAULT_BYTES_PER_SIGOP);
}

// ---------------------------------------------------------------- the nodes

let pool: TestNode;
let policy: TestPolicyNode;
let oracle: RpcClient;

before(async () => {
  const p2pPort = await freePort();
  pool = await startTestNode({ extraArgs: [...poolNodeP2pArgs(p2pPort), '-datacarriersize=100000', '-permitbaremultisig=1', '-dustrelayfee=0'] });
  policy = await startTestPolicyNode(p2pPort);
  oracle = policy.rpc;
});

after(async () => {
  await policy?.stop();
  await pool?.stop();
});

/** Funds every coin the corpus spends, several to a funding transaction, and mines them all in one block. */
async function fund(coins: Coin[]): Promise<void> {
  const perTx = 8;
  await pool.ensureUtxos(Math.ceil(coins.length / perTx));
  const hexes: string[] = [];
  for (let start = 0; start < coins.length; start += perTx) {
    const chunk = coins.slice(start, start + perTx);
    const funding = await pool.buildWithOutputs({ outputs: chunk.map((c) => ({ value: c.value, scriptPubKey: c.script })), feeRate: 2 });
    // buildWithOutputs puts its change first.
    chunk.forEach((c, i) => Object.assign(c, { txid: funding.txid, vout: i + 1 }));
    hexes.push(funding.hex);
  }
  await pool.rpc.call('generateblock', [await pool.address(), hexes]);
  const height = await pool.rpc.call<number>('getblockcount');
  await until(async () => (await oracle.call<number>('getblockcount')) === height, async () => `policy node at ${await oracle.call<number>('getblockcount')}, pool at ${height}`);
}

async function walletScripts(): Promise<WalletScripts> {
  const scriptOf = async (type: string) => (await pool.wallet.call<{ scriptPubKey: string }>('getaddressinfo', [await pool.wallet.call<string>('getnewaddress', ['', type])])).scriptPubKey;
  return { p2wpkh: await scriptOf('bech32'), p2pkh: await scriptOf('legacy'), p2shP2wpkh: await scriptOf('p2sh-segwit'), p2tr: await scriptOf('bech32m') };
}

// ---------------------------------------------------------------- the comparison

/**
 * Refusals of this Knots that Core 29's policy does not make (its own data
 * limits: output scripts over 34 bytes, 83 for OP_RETURN; OP_IF in
 * tapscript): no verdict of the module to compare them with.
 */
const KNOTS_ONLY = ['bad-txns-vout-script-toolarge', 'mempool-script-verify-flag-failed (OP_IF/NOTIF argument must be minimal in tapscript)'];
const SCRIPT_FAILURE = /^(mempool|mandatory|non-mandatory)-script-verify-flag/;


/** The node's reason as a rule names it: "min relay fee not met, 100 < 141" is "min relay fee not met"; Knots's names are Core's (policy-verdicts.ts KNOTS_REASON_NAMES). */
const ruleReason = (reason: string) => {
  const short = reason.split(/,| \(/)[0]!;
  return KNOTS_REASON_NAMES[short] ?? short;
};

test(`the rules module and the policy node (Core 29's policy) agree on every corpus transaction`, async (t) => {
  // Core 29.0 asked 1,000 sat/kvB, 29.1 and this Knots 100: the fee rule is judged at the node's own minimum.
  const network = await oracle.call<{ relayfee: number; subversion: string }>('getnetworkinfo');
  const relayFee = btcToSats(network.relayfee);
  const rules: RuleParameters = relayFee === CORE_29.minRelayFeePerKvB ? CORE_29 : { ...CORE_29, minRelayFeePerKvB: relayFee };

  const coins = new Map<string, Coin>();
  const coin = (script: string, n = 0): Coin => {
    const id = `${script}/${n}`;
    if (!coins.has(id)) coins.set(id, { script, value: COIN_SATS, txid: ZERO_TXID, vout: 0 });
    return coins.get(id)!;
  };
  const cases = corpus(coin, await walletScripts(), rules.minRelayFeePerKvB);
  await fund([...coins.values()]);

  const txs = cases.map((c) => ({ c, tx: encode(c) }));
  const toSign = txs.filter(({ c }) => c.sign);
  const signed = await pool.wallet.batch<{ hex: string; complete: boolean }>(toSign.map(({ tx }) => ({ method: 'signrawtransactionwithwallet', params: [tx.hex] })));
  signed.forEach((answer, i) => {
    assert.ok(answer.ok && answer.result.complete, `${toSign[i]!.c.label}: signed`);
    const { c } = toSign[i]!;
    const hex = c.afterSigning ? c.afterSigning(answer.result.hex) : answer.result.hex;
    toSign[i]!.tx = { ...decodeTxHex(hex), hex };
  });

  const judged: Judged[] = txs.map(({ c, tx }) => {
    const spent = c.inputs.map((s) => ({ value: s.coin.value, script: s.coin.script }));
    const fee = spent.reduce((a, s) => a + s.value, 0) - tx.outputs.reduce((a, o) => a + o.value, 0);
    const vsize = vsizeOf(tx, spent.map((s) => s.script));
    return { label: c.label, hex: tx.hex, vsize, verdict: checkStandardRules({ tx, spent, fee, vsize, spentInPackage: new Set<number>() }, rules) };
  });
  assert.equal(new Set(judged.map((j) => j.label)).size, judged.length, 'labels are unique');
  const firstOf = new Map<string, string>();
  for (const j of judged) {
    assert.ok(!firstOf.has(j.hex), `${j.label}: the same transaction as ${firstOf.get(j.hex)}`);
    firstOf.set(j.hex, j.label);
  }

  // One transaction per call (testmempoolaccept judges a list as a package), many calls to a batch.
  const answers: MempoolAccept[] = [];
  const batches: Array<Promise<MempoolAccept[]>> = [];
  for (let start = 0; start < judged.length; start += 20) {
    const calls = judged.slice(start, start + 20).map((j) => ({ method: 'testmempoolaccept', params: [[j.hex], 0] }));
    batches.push(oracle.batch<MempoolAccept[]>(calls).then((items) => items.map((item) => {
      if (!item.ok) throw item.error;
      return item.result[0]!;
    })));
  }
  for (const batch of await Promise.all(batches)) answers.push(...batch);

  const disagreements: string[] = [];
  const knotsOnly = new Map<string, string[]>();
  let compared = 0;
  judged.forEach((j, i) => {
    const answer = answers[i]!;
    const reason = answer['reject-reason'] ?? '';
    let expected: RuleVerdict;
    if (answer.allowed) {
      expected = { relays: true };
      if (answer.vsize !== j.vsize) disagreements.push(`${j.label}: node vsize ${answer.vsize}, ours ${j.vsize}`);
    } else if (ruleReason(reason) in RULE_SOURCES) {
      expected = { relays: false, reason: ruleReason(reason) };
    } else if (SCRIPT_FAILURE.test(reason) && !KNOTS_ONLY.includes(reason)) {
      expected = { relays: true };
    } else {
      const key = SCRIPT_FAILURE.test(reason) ? reason : ruleReason(reason);
      knotsOnly.set(key, [...(knotsOnly.get(key) ?? []), j.label]);
      return;
    }
    compared += 1;
    if (JSON.stringify(j.verdict) !== JSON.stringify(expected)) {
      disagreements.push(`${j.label}: node ${answer.allowed ? 'allowed' : `refused (${reason}${answer['reject-details'] ? `; ${answer['reject-details']}` : ''})`}, rules ${JSON.stringify(j.verdict)}`);
    }
  });

  t.diagnostic(`policy node's relay fee ${relayFee} sat/kvB (Core 29: ${CORE_29.minRelayFeePerKvB}); ${compared} of ${judged.length} transactions compared; Knots only: ${[...knotsOnly].map(([r, labels]) => `${r} (${labels.length})`).join(', ')}`);
  // A Bitcoin Core policy node (BITCOIND=…) makes none of them.
  const expectedKnotsOnly = /knots/i.test(network.subversion) ? [...KNOTS_ONLY].sort() : [];
  assert.deepEqual([...knotsOnly.keys()].sort(), expectedKnotsOnly, `refusals outside Core 29's policy: ${JSON.stringify(Object.fromEntries(knotsOnly), null, 1)}`);
  assert.deepEqual(disagreements, [], `${disagreements.length} disagreements:\n${disagreements.join('\n')}`);
  assert.ok(compared >= 200, `${compared} transactions compared (${judged.length} in the corpus)`);
});
