import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeTxHex, encodeTxHex, type DecodedInput, type DecodedOutput } from '../tx-codec.ts';
import { checkStandardRules, dustThreshold, RULE_SOURCES, type RuleReason, type RulesInput } from './standard-rules.ts';
import { CORE, CORE_29, type RuleParameters } from './policy-families.ts';

/**
 * Each rule against the case Bitcoin Core's own tests use for it (named
 * per test: test/functional/mempool_accept.py, mempool_datacarrier.py,
 * mempool_sigoplimit.py, p2p_segwit.py, mempool_truc.py, mempool_dust.py),
 * starting, as they do, from one standard transaction changed in one way.
 * The node-backed corpus (test/standard-rules.oracle.test.ts) checks the
 * same module against a running node.
 */

const P2WPKH = `0014${'22'.repeat(20)}`;
const P2SH_BURN = 'a914' + '44'.repeat(20) + '87';
const KEY = `02${'11'.repeat(32)}`;
const SIG = `30${'00'.repeat(70)}`;

interface Case {
  tx: { version: number; locktime: number; inputs: DecodedInput[]; outputs: DecodedOutput[] };
  spent?: RulesInput['spent'];
  fee?: number;
  /** Its outputs a child in the same package spends. */
  spentInPackage?: number[];
}

/** mempool_accept.py's raw_tx_reference, in spirit: one P2WPKH input, one P2WPKH output, 1,000 sats of fee. */
function reference(): Case {
  return {
    tx: {
      version: 2,
      locktime: 0,
      inputs: [{ txid: 'aa'.repeat(32), vout: 0, scriptSig: '', sequence: 0xffff_fffd, witness: [SIG, KEY] }],
      outputs: [{ value: 10_000, scriptPubKey: P2WPKH }],
    },
    spent: [{ value: 11_000, script: `0014${'33'.repeat(20)}` }],
  };
}

function judge(c: Case, rules: RuleParameters = CORE) {
  const tx = decodeTxHex(encodeTxHex(c.tx));
  const spent = c.spent ?? reference().spent!;
  const fee = c.fee ?? (spent.every((s) => s) ? spent.reduce((sum, s) => sum + s!.value, 0) - tx.outputs.reduce((sum, o) => sum + o.value, 0) : undefined);
  return checkStandardRules({ tx, spent, fee, vsize: tx.vsize, spentInPackage: new Set(c.spentInPackage ?? []) }, rules);
}

function changed(edit: (c: Case) => void): Case {
  const c = reference();
  edit(c);
  return c;
}

const refused = (reason: RuleReason) => ({ relays: false, reason });
const push = (hex: string) => {
  const n = hex.length / 2;
  if (n < 0x4c) return n.toString(16).padStart(2, '0') + hex;
  if (n <= 0xff) return `4c${n.toString(16).padStart(2, '0')}${hex}`;
  return `4d${Buffer.from([n & 0xff, n >> 8]).toString('hex')}${hex}`;
};

describe('the rules module, rule by rule (Bitcoin Core source and test named in each)', () => {
  test('every reject reason names its source in Core', () => {
    for (const [reason, source] of Object.entries(RULE_SOURCES)) assert.match(source, /\.(cpp|h)\b/, reason);
  });

  test('the reference transaction relays under both Core families', () => {
    assert.deepEqual(judge(reference(), CORE), { relays: true });
    assert.deepEqual(judge(reference(), CORE_29), { relays: true });
  });

  test('version: 1..3 relay, 0, 4 and 0xffffffff (-1) do not (mempool_accept.py "Some nonstandard transactions"; policy.h TX_MAX_STANDARD_VERSION)', () => {
    for (const version of [1, 2, 3]) assert.deepEqual(judge(changed((c) => (c.tx.version = version))), { relays: true }, `version ${version}`);
    for (const version of [0, 4, 0xffff_ffff]) assert.deepEqual(judge(changed((c) => (c.tx.version = version))), refused('version'), `version ${version}`);
  });

  test('tx-size: 100,000 bytes of P2SH outputs is over 400,000 WU (mempool_accept.py, output_p2sh_burn)', () => {
    const c = changed((c) => {
      const count = Math.floor(100_000 / 32);
      c.tx.outputs = Array.from({ length: count }, () => ({ value: 540, scriptPubKey: P2SH_BURN }));
      c.spent = [{ value: 540 * count + 100_000, script: reference().spent![0]!.script }];
    });
    assert.deepEqual(judge(c), refused('tx-size'));
  });

  test('scriptsig-not-pushonly and scriptsig-size (mempool_accept.py: CScript([OP_HASH160]); a 1,648-byte push)', () => {
    assert.deepEqual(judge(changed((c) => (c.tx.inputs[0]!.scriptSig = 'a9'))), refused('scriptsig-not-pushonly'));
    assert.deepEqual(judge(changed((c) => (c.tx.inputs[0]!.scriptSig = push('61'.repeat(1648))))), refused('scriptsig-size'));
    // 1,650 bytes exactly is the limit: a 1,647-byte push is 1,650 bytes of script.
    assert.notDeepEqual(judge(changed((c) => (c.tx.inputs[0]!.scriptSig = push('61'.repeat(1647))))), refused('scriptsig-size'));
  });

  test('scriptpubkey: OP_0 alone, and bare multisig of 4 keys (mempool_accept.py; policy.cpp IsStandard "up to x-of-3")', () => {
    assert.deepEqual(judge(changed((c) => (c.tx.outputs[0]!.scriptPubKey = '00'))), refused('scriptpubkey'));
    const multisig = (m: number, n: number) => `${(0x50 + m).toString(16)}${`21${KEY}`.repeat(n)}${(0x50 + n).toString(16)}ae`;
    assert.deepEqual(judge(changed((c) => (c.tx.outputs[0]!.scriptPubKey = multisig(1, 4)))), refused('scriptpubkey'));
    assert.deepEqual(judge(changed((c) => (c.tx.outputs[0]!.scriptPubKey = multisig(2, 3)))), { relays: true });
    // bare-multisig: the same 2-of-3 with -permitbaremultisig=0 (mempool_accept.py runs that node).
    assert.deepEqual(judge(changed((c) => (c.tx.outputs[0]!.scriptPubKey = multisig(2, 3))), { ...CORE, permitBareMultisig: false }), refused('bare-multisig'));
  });

  test('dust: thresholds of GetDustThreshold at 3,000 sat/kvB, and one output below it (mempool_accept.py: output_p2sh_burn.nValue - 1; mempool_dust.py)', () => {
    const threshold = (script: string) => dustThreshold(Buffer.from(script, 'hex'), 3_000);
    assert.deepEqual([threshold(P2SH_BURN), threshold(P2WPKH), threshold(`5120${'55'.repeat(32)}`), threshold(`76a914${'66'.repeat(20)}88ac`), threshold('51024e73'), threshold('6a00')], [540, 294, 330, 546, 240, 0]);
    // One dust output on a transaction that pays a fee: refused (ephemeral dust must be 0-fee, ephemeral_policy.cpp).
    assert.deepEqual(judge(changed((c) => (c.tx.outputs[0] = { value: 539, scriptPubKey: P2SH_BURN }))), refused('dust'));
    // Two dust outputs: refused by IsStandardTx whatever the fee (MAX_DUST_OUTPUTS_PER_TX 1).
    assert.deepEqual(judge(changed((c) => (c.tx.outputs = [{ value: 1, scriptPubKey: P2WPKH }, { value: 1, scriptPubKey: P2WPKH }])), CORE_29), refused('dust'));
    // Ephemeral dust: 0-fee TRUC parent whose dust its child in the package spends (mempool_ephemeral_dust.py).
    const ephemeral = changed((c) => {
      c.tx.version = 3;
      c.tx.outputs = [{ value: 11_000, scriptPubKey: P2WPKH }, { value: 0, scriptPubKey: '51024e73' }];
      c.spentInPackage = [0, 1];
    });
    // Every rule of its own passes; below the minimum, the package's rate decides (the node judges the package).
    assert.deepEqual(judge(ephemeral), { relays: 'unknown', missing: 'package' });
    // Alone, it is refused for its fee before anyone asks who spends its dust (the node answers so: test/standard-rules.oracle.test.ts).
    assert.deepEqual(judge({ ...ephemeral, spentInPackage: [] }), refused('min relay fee not met'));
    // Dust before the sigop cost and the minimum (PreChecks' order): one dust output and a small fee is refused for the dust.
    assert.deepEqual(judge(changed((c) => (c.tx.outputs = [{ value: 10_996, scriptPubKey: P2WPKH }, { value: 0, scriptPubKey: '51024e73' }]))), refused('dust'));
  });

  test('OP_RETURN: Core 29 relays one of up to 83 bytes; Core 30 relays several, sharing -datacarriersize (mempool_accept.py multi-op-return; mempool_datacarrier.py)', () => {
    const opReturn = (bytes: number) => `6a${push('ff'.repeat(bytes))}`;
    const withOutputs = (...scripts: string[]) => changed((c) => {
      c.tx.outputs.push(...scripts.map((s) => ({ value: 0, scriptPubKey: s })));
    });
    assert.deepEqual(judge(withOutputs('6a01ff', '6a01ff'), CORE_29), refused('multi-op-return'));
    assert.deepEqual(judge(withOutputs('6a01ff', '6a01ff'), CORE), { relays: true });
    assert.deepEqual(judge(withOutputs(opReturn(80)), CORE_29), { relays: true });
    assert.deepEqual(judge(withOutputs(opReturn(81)), CORE_29), refused('scriptpubkey'));
    assert.deepEqual(judge(withOutputs(opReturn(81)), CORE), { relays: true });
    assert.deepEqual(judge({ ...withOutputs(opReturn(5_000), opReturn(5_000)), fee: 2_000 }, CORE), { relays: true });
    // -datacarriersize=N: the scriptPubKeys together, OP_RETURN and push opcodes included (mempool_datacarrier.py).
    const small: RuleParameters = { ...CORE, datacarrier: { kind: 'total', bytes: 84 } };
    assert.deepEqual(judge(withOutputs(opReturn(40), opReturn(40)), small), { relays: true });
    assert.deepEqual(judge(withOutputs(opReturn(40), opReturn(41)), small), refused('datacarrier'));
    // -datacarrier=0: no budget at all.
    assert.deepEqual(judge(withOutputs('6a'), { ...CORE, datacarrier: { kind: 'total', bytes: 0 } }), refused('datacarrier'));
  });

  test('tx-size-small: under 65 bytes without witness (mempool_accept.py "A really small transaction"; policy.h MIN_STANDARD_TX_NONWITNESS_SIZE)', () => {
    // 10 + 41 + 9 + 4 (6a02ffff) = 64 bytes stripped; one byte more is 65.
    assert.deepEqual(judge(changed((c) => (c.tx.outputs = [{ value: 0, scriptPubKey: '6a02ffff' }]))), refused('tx-size-small'));
    assert.deepEqual(judge(changed((c) => (c.tx.outputs = [{ value: 0, scriptPubKey: '6a03ffffff' }]))), { relays: true });
  });

  test('bad-txns-nonstandard-inputs: an unknown witness version, a bare non-standard script, a P2SH redeem script of 16 sigops (p2p_segwit.py; policy.cpp MAX_P2SH_SIGOPS)', () => {
    assert.deepEqual(judge(changed((c) => (c.spent = [{ value: 11_000, script: `5220${'77'.repeat(32)}` }]))), refused('bad-txns-nonstandard-inputs'));
    assert.deepEqual(judge(changed((c) => (c.spent = [{ value: 11_000, script: '51' }]))), refused('bad-txns-nonstandard-inputs'));
    const p2sh = (sigops: number): Case => changed((c) => {
      c.tx.inputs[0]!.witness = [];
      c.tx.inputs[0]!.scriptSig = push('ac'.repeat(sigops));
      c.spent = [{ value: 11_000, script: P2SH_BURN }];
    });
    assert.deepEqual(judge(p2sh(15)), { relays: true });
    assert.deepEqual(judge(p2sh(16)), refused('bad-txns-nonstandard-inputs'));
    // Evaluating the scriptSig fails past 1,000 stack elements (MAX_STACK_SIZE): 1,001 pushes before the redeem script.
    const stacked = (pushes: number): Case => changed((c) => {
      c.tx.inputs[0]!.witness = [];
      c.tx.inputs[0]!.scriptSig = '51'.repeat(pushes) + push('ac');
      c.spent = [{ value: 11_000, script: P2SH_BURN }];
    });
    assert.deepEqual(judge(stacked(999)), { relays: true });
    assert.deepEqual(judge(stacked(1_000)), refused('bad-txns-nonstandard-inputs'));
  });

  test('Core 30 counts legacy sigops: 2,501 in all is refused, where Core 29 relays it (mempool_sigoplimit.py test_legacy_sigops_stdness; release note 32521)', () => {
    // 167 inputs of 15 sigops each: 2,505 (each well inside MAX_P2SH_SIGOPS).
    const c = changed((c) => {
      c.tx.inputs = Array.from({ length: 167 }, (_, i) => ({ txid: 'aa'.repeat(32), vout: i, scriptSig: push('ac'.repeat(15)), sequence: 0xffff_fffd, witness: [] }));
      c.spent = c.tx.inputs.map(() => ({ value: 1_000, script: P2SH_BURN }));
    });
    assert.deepEqual(judge(c, CORE), refused('bad-txns-nonstandard-inputs'));
    assert.deepEqual(judge(c, CORE_29), { relays: true });
  });

  test('bad-witness-nonstandard: P2WSH and tapscript limits, an annex, a witness where none belongs, a P2A spent with one (p2p_segwit.py test_non_standard_witness; mempool_accept.py P2A)', () => {
    const p2wsh = (witness: string[]) => changed((c) => {
      c.tx.inputs[0]!.witness = witness;
      c.spent = [{ value: 11_000, script: `0020${'88'.repeat(32)}` }];
    });
    assert.deepEqual(judge(p2wsh(['aa'.repeat(80), '51'])), { relays: true });
    assert.deepEqual(judge(p2wsh(['aa'.repeat(81), '51'])), refused('bad-witness-nonstandard'));
    assert.deepEqual(judge(p2wsh([...Array.from({ length: 100 }, () => '01'), '51'])), { relays: true });
    assert.deepEqual(judge(p2wsh([...Array.from({ length: 101 }, () => '01'), '51'])), refused('bad-witness-nonstandard'));
    assert.deepEqual(judge(p2wsh(['61'.repeat(3_600)])), { relays: true });
    assert.deepEqual(judge(p2wsh(['61'.repeat(3_601)])), refused('bad-witness-nonstandard'));

    const taproot = (witness: string[]) => changed((c) => {
      c.tx.inputs[0]!.witness = witness;
      c.spent = [{ value: 11_000, script: `5120${'99'.repeat(32)}` }];
    });
    const control = `c0${'99'.repeat(32)}`;
    assert.deepEqual(judge(taproot(['aa'.repeat(64)])), { relays: true });
    assert.deepEqual(judge(taproot(['aa'.repeat(64), '50'])), refused('bad-witness-nonstandard'));
    assert.deepEqual(judge(taproot(['aa'.repeat(80), '51', control])), { relays: true });
    assert.deepEqual(judge(taproot(['aa'.repeat(81), '51', control])), refused('bad-witness-nonstandard'));
    // An inscription's data is in the script, not the stack: any size the weight allows.
    assert.deepEqual(judge(taproot(['aa'.repeat(64), `0063${'4d0802' + 'ab'.repeat(520)}68${'51'}`, control])), { relays: true });
    // Another leaf version: its stack items are not limited (a future soft fork's).
    assert.deepEqual(judge(taproot(['aa'.repeat(81), '51', `c2${'99'.repeat(32)}`])), { relays: true });

    assert.deepEqual(judge(changed((c) => (c.spent = [{ value: 11_000, script: `76a914${'66'.repeat(20)}88ac` }]))), refused('bad-witness-nonstandard'));
    assert.deepEqual(judge(changed((c) => (c.spent = [{ value: 11_000, script: '51024e73' }]))), refused('bad-witness-nonstandard'));
    assert.deepEqual(judge(changed((c) => { c.tx.inputs[0]!.witness = []; c.spent = [{ value: 11_000, script: '51024e73' }]; })), { relays: true });
  });

  test('bad-txns-too-many-sigops: a sigop cost over 16,000 (mempool_sigoplimit.py; policy.h MAX_STANDARD_TX_SIGOPS_COST)', () => {
    // Five P2WSH inputs whose witness scripts hold 3,600 CHECKSIGs each: 18,000, and no legacy sigops.
    const c = changed((c) => {
      c.tx.inputs = Array.from({ length: 5 }, (_, i) => ({ txid: 'aa'.repeat(32), vout: i, scriptSig: '', sequence: 0xffff_fffd, witness: ['ac'.repeat(3_600)] }));
      c.spent = c.tx.inputs.map(() => ({ value: 100_000, script: `0020${'88'.repeat(32)}` }));
    });
    assert.deepEqual(judge(c, CORE), refused('bad-txns-too-many-sigops'));
    assert.deepEqual(judge({ ...c, tx: { ...c.tx, inputs: c.tx.inputs.slice(0, 4) }, spent: c.spent!.slice(0, 4) }, CORE), { relays: true });
  });

  test('min relay fee: 0.1 sat/vB in Core 30 and 29.1, 1 sat/vB with 29.0\'s default (mempool_accept.py; release notes 30 and 29.1: DEFAULT_MIN_RELAY_TX_FEE 100)', () => {
    const vsize = decodeTxHex(encodeTxHex(reference().tx)).vsize;
    const core290: RuleParameters = { ...CORE_29, minRelayFeePerKvB: 1_000 };
    assert.deepEqual(judge({ ...reference(), fee: vsize - 1 }, core290), refused('min relay fee not met'));
    assert.deepEqual(judge({ ...reference(), fee: vsize }, core290), { relays: true });
    assert.deepEqual(judge({ ...reference(), fee: Math.ceil(vsize / 10) - 1 }, CORE_29), refused('min relay fee not met'));
    assert.deepEqual(judge({ ...reference(), fee: Math.ceil(vsize / 10) }, CORE), { relays: true });
    assert.deepEqual(judge({ ...reference(), fee: Math.ceil(vsize / 10) - 1 }, CORE), refused('min relay fee not met'));
    // A TRUC parent below it may relay with its child (mempool_truc.py, package relay): the package's rate decides; alone it is refused; a version 2 one is refused even with a child.
    assert.deepEqual(judge({ ...changed((c) => (c.tx.version = 3)), fee: 0, spentInPackage: [0] }, CORE), { relays: 'unknown', missing: 'package' });
    assert.deepEqual(judge({ ...changed((c) => (c.tx.version = 3)), fee: 0 }, CORE), refused('min relay fee not met'));
    assert.deepEqual(judge({ ...reference(), fee: 0, spentInPackage: [0] }, CORE), refused('min relay fee not met'));
  });

  test('TRUC-violation: a version 3 transaction over 10,000 vB (mempool_truc.py test_truc_max_vsize)', () => {
    const big = (count: number) => changed((c) => {
      c.tx.version = 3;
      c.tx.outputs = Array.from({ length: count }, () => ({ value: 1_000, scriptPubKey: P2WPKH }));
      c.spent = [{ value: 1_000 * count + 20_000, script: reference().spent![0]!.script }];
    });
    assert.deepEqual(judge(big(330)), refused('TRUC-violation'));
    assert.deepEqual(judge(big(200)), { relays: true });
  });

  test('a coinbase is never relayed (mempool_accept.py "A coinbase transaction")', () => {
    assert.deepEqual(judge(changed((c) => {
      c.tx.inputs = [{ txid: '00'.repeat(32), vout: 0xffff_ffff, scriptSig: '0101', sequence: 0xffff_ffff, witness: [] }];
    })), refused('coinbase'));
  });

  test('rules that need the spent outputs or the fee say what they lack, not a guess', () => {
    assert.deepEqual(judge({ ...reference(), spent: [undefined] }), { relays: 'unknown', missing: 'prevouts' });
    const tx = decodeTxHex(encodeTxHex(reference().tx));
    assert.deepEqual(checkStandardRules({ tx, spent: reference().spent!, fee: undefined, vsize: tx.vsize, spentInPackage: new Set() }, CORE), { relays: 'unknown', missing: 'fee' });
    // A rule that needs neither still refuses.
    assert.deepEqual(judge({ ...changed((c) => (c.tx.version = 4)), spent: [undefined] }), refused('version'));
  });
});
