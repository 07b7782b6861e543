import { isPayToScriptHash, isPushOnly, lastPush, MAX_SCRIPT_ELEMENT_SIZE, OP_0, OP_16, OP_1, OP_1NEGATE, readOp, scriptSigOpCount, witnessProgram, WITNESS_V0_SCRIPTHASH_SIZE, WITNESS_V1_TAPROOT_SIZE } from '../script.ts';
import { compactSizeLength } from '../compact-size.ts';
import { isCoinbase, transactionSigOpCostParts } from '../sigops.ts';
import type { DecodedTx } from '../tx-codec.ts';
import { isPayToAnchor, outputType } from './output-type.ts';
import type { RuleParameters } from './policy-families.ts';

/**
 * Bitcoin Core's standardness rules, for the families no node here can run
 * (policy-families.ts): the checks `MemPoolAccept::PreChecks`
 * (validation.cpp) makes before any script runs, in its order, with its
 * reject reasons, so a verdict reads exactly as a node's would. Each rule
 * names the source it comes from (RULE_SOURCES; standard-rules.test.ts
 * tests each against Core's own test cases).
 *
 * What it does not judge: scripts and signatures, and everything that
 * depends on a mempool or chain (finality, conflicts, chain limits). Those
 * are the policy node's (modules/policy/policy-verdicts.ts), which runs
 * Core's script checks; this module's "relays" means "passes every
 * standardness rule", and is only a verdict together with that node's.
 */

export type RuleVerdict =
  | { relays: true }
  | { relays: false; reason: string }
  /**
   * A rule needs what is not known: the outputs it spends, its fee, or (a
   * TRUC parent below the minimum that relays only with its child) the
   * package's rate, which the package's node verdict judges.
   */
  | { relays: 'unknown'; missing: 'prevouts' | 'fee' | 'package' };

export interface RulesInput {
  tx: DecodedTx;
  /** What each input spends, undefined where unknown. */
  spent: ReadonlyArray<{ value: number; script: string } | undefined>;
  /** Its fee (sats); undefined when an input is unknown. */
  fee: number | undefined;
  /** The sigop-adjusted virtual size fees are judged by (policy/policy.cpp GetVirtualTransactionSize). */
  vsize: number;
  /** Its outputs (vouts) that another member of the same package spends: a TRUC parent, or its one dust output, may rely on that child (package relay). */
  spentInPackage: ReadonlySet<number>;
}

/** Where each reject reason's rule is in Bitcoin Core's source. */
export const RULE_SOURCES = {
  coinbase: 'validation.cpp MemPoolAccept::PreChecks (a coinbase is never relayed)',
  version: 'policy/policy.cpp IsStandardTx; policy.h TX_MIN_STANDARD_VERSION 1, TX_MAX_STANDARD_VERSION 3',
  'tx-size': 'policy/policy.cpp IsStandardTx; policy.h MAX_STANDARD_TX_WEIGHT 400,000',
  'scriptsig-size': 'policy/policy.cpp IsStandardTx; policy.h MAX_STANDARD_SCRIPTSIG_SIZE 1,650',
  'scriptsig-not-pushonly': 'policy/policy.cpp IsStandardTx (CScript::IsPushOnly)',
  scriptpubkey: 'policy/policy.cpp IsStandard (script/solver.cpp Solver; bare multisig at most 3 keys)',
  datacarrier: 'policy/policy.cpp IsStandardTx (Core 30: all OP_RETURN outputs share -datacarriersize, MAX_OP_RETURN_RELAY 100,000)',
  'bare-multisig': 'policy/policy.cpp IsStandardTx (-permitbaremultisig)',
  dust: 'policy/policy.cpp IsStandardTx and GetDustThreshold (MAX_DUST_OUTPUTS_PER_TX 1); policy/ephemeral_policy.cpp PreCheckEphemeralTx',
  'multi-op-return': 'policy/policy.cpp IsStandardTx, Core 29 and earlier (one OP_RETURN output)',
  'tx-size-small': 'validation.cpp PreChecks; policy.h MIN_STANDARD_TX_NONWITNESS_SIZE 65',
  'bad-txns-nonstandard-inputs': 'policy/policy.cpp AreInputsStandard (MAX_P2SH_SIGOPS 15; Core 30: CheckSigopsBIP54, MAX_TX_LEGACY_SIGOPS 2,500)',
  'bad-witness-nonstandard': 'policy/policy.cpp IsWitnessStandard (P2WSH 3,600-byte script, 100 items of 80 bytes; no annex; tapscript items of 80 bytes; P2A spent with an empty witness)',
  'bad-txns-too-many-sigops': 'validation.cpp PreChecks; policy.h MAX_STANDARD_TX_SIGOPS_COST 16,000',
  'min relay fee not met': 'validation.cpp CheckFeeRate (-minrelaytxfee; TRUC parents may rely on their child: policy/packages.cpp)',
  'TRUC-violation': 'policy/truc_policy.cpp SingleTRUCChecks (TRUC_MAX_VSIZE 10,000)',
} as const;
export type RuleReason = keyof typeof RULE_SOURCES;

const MAX_STANDARD_TX_WEIGHT = 400_000;
const MAX_STANDARD_SCRIPTSIG_SIZE = 1_650;
const MIN_STANDARD_TX_NONWITNESS_SIZE = 65;
const MAX_P2SH_SIGOPS = 15;
const MAX_STANDARD_TX_SIGOPS_COST = 16_000;
const MAX_STANDARD_P2WSH_SCRIPT_SIZE = 3_600;
const MAX_STANDARD_P2WSH_STACK_ITEMS = 100;
const MAX_STANDARD_P2WSH_STACK_ITEM_SIZE = 80;
const MAX_STANDARD_TAPSCRIPT_STACK_ITEM_SIZE = 80;
const MAX_DUST_OUTPUTS_PER_TX = 1;
const TRUC_VERSION = 3;
const TRUC_MAX_VSIZE = 10_000;
/** script/script.h MAX_SCRIPT_SIZE: a longer scriptPubKey is unspendable, so never dust. */
const MAX_SCRIPT_SIZE = 10_000;
const ANNEX_TAG = 0x50;
const TAPROOT_LEAF_MASK = 0xfe;
const TAPROOT_LEAF_TAPSCRIPT = 0xc0;
const OP_RESERVED = 0x50;
const MAX_STACK_SIZE = 1_000;
const OP_RETURN = 0x6a;

const refuse = (reason: RuleReason): RuleVerdict => ({ relays: false, reason });

export function checkStandardRules(input: RulesInput, rules: RuleParameters): RuleVerdict {
  const { tx } = input;
  if (isCoinbase(tx)) return refuse('coinbase');
  const structural = isStandardTx(tx, rules);
  if (structural) return refuse(structural);
  if (strippedSize(tx) < MIN_STANDARD_TX_NONWITNESS_SIZE) return refuse('tx-size-small');

  if (input.spent.some((s) => s === undefined)) return { relays: 'unknown', missing: 'prevouts' };
  const spent = input.spent as ReadonlyArray<{ value: number; script: string }>;
  const prevouts = spent.map((s) => Buffer.from(s.script, 'hex'));
  if (!areInputsStandard(tx, prevouts, rules)) return refuse('bad-txns-nonstandard-inputs');
  if (!isWitnessStandard(tx, prevouts)) return refuse('bad-witness-nonstandard');
  // PreCheckEphemeralTx, then the sigop cost, then the individual minimum (validation.cpp PreChecks' order).
  const dust = dustOutputs(tx, rules);
  // Ephemeral dust: the one dust output allowed is on a 0-fee transaction (policy/ephemeral_policy.cpp PreCheckEphemeralTx). Whether a child
  // spends it (CheckEphemeralSpends) is the package's check, after the fee's: a lone 0-fee transaction is refused for its fee first.
  if (input.fee !== undefined && dust.length === MAX_DUST_OUTPUTS_PER_TX && input.fee !== 0) return refuse('dust');
  if (transactionSigOpCostParts(tx, spent.map((s) => s.script)).total > MAX_STANDARD_TX_SIGOPS_COST) return refuse('bad-txns-too-many-sigops');

  if (input.fee === undefined) return { relays: 'unknown', missing: 'fee' };
  const truc = signedVersion(tx) === TRUC_VERSION;
  const belowMinimum = input.fee < feeAt(rules.minRelayFeePerKvB, input.vsize);
  // Below the minimum alone: refused, except a TRUC transaction, which the package's rate may carry (CheckFeeRate with package feerates).
  if (belowMinimum && !truc) return refuse('min relay fee not met');
  if (truc && input.vsize > TRUC_MAX_VSIZE) return refuse('TRUC-violation');
  if (belowMinimum) return input.spentInPackage.size > 0 ? { relays: 'unknown', missing: 'package' } : refuse('min relay fee not met');
  return { relays: true };
}

/** The fee a rate in sat/kvB asks of `vsize` vB, rounded up (policy/feerate.cpp CFeeRate::GetFee). */
export function feeAt(ratePerKvB: number, vsize: number): number {
  return Math.ceil((ratePerKvB * vsize) / 1000);
}

/** policy/policy.cpp IsStandardTx: the checks that need nothing but the transaction itself. */
function isStandardTx(tx: DecodedTx, rules: RuleParameters): RuleReason | undefined {
  const version = signedVersion(tx);
  if (version < 1 || version > TRUC_VERSION) return 'version';
  if (tx.weight > MAX_STANDARD_TX_WEIGHT) return 'tx-size';
  for (const input of tx.inputs) {
    const scriptSig = Buffer.from(input.scriptSig, 'hex');
    if (scriptSig.length > MAX_STANDARD_SCRIPTSIG_SIZE) return 'scriptsig-size';
    if (!isPushOnly(scriptSig)) return 'scriptsig-not-pushonly';
  }
  let dataOutputs = 0;
  let datacarrierLeft = rules.datacarrier.bytes;
  for (const output of tx.outputs) {
    const script = Buffer.from(output.scriptPubKey, 'hex');
    const kind = outputType(script);
    if (kind.type === 'nonstandard') return 'scriptpubkey';
    if (kind.type === 'multisig' && (kind.keys < 1 || kind.keys > 3 || kind.required < 1 || kind.required > kind.keys)) return 'scriptpubkey';
    if (kind.type === 'nulldata') {
      dataOutputs += 1;
      if (rules.datacarrier.kind === 'one-output') {
        if (script.length > rules.datacarrier.bytes) return 'scriptpubkey';
      } else {
        if (script.length > datacarrierLeft) return 'datacarrier';
        datacarrierLeft -= script.length;
      }
    } else if (kind.type === 'multisig' && !rules.permitBareMultisig) {
      return 'bare-multisig';
    }
  }
  if (dustOutputs(tx, rules).length > MAX_DUST_OUTPUTS_PER_TX) return 'dust';
  if (rules.datacarrier.kind === 'one-output' && dataOutputs > 1) return 'multi-op-return';
  return undefined;
}

/** policy/policy.cpp GetDust: outputs worth less than spending them would cost at -dustrelayfee. */
export function dustOutputs(tx: DecodedTx, rules: RuleParameters): number[] {
  const dust: number[] = [];
  tx.outputs.forEach((output, i) => {
    if (output.value < dustThreshold(Buffer.from(output.scriptPubKey, 'hex'), rules.dustRelayFeePerKvB)) dust.push(i);
  });
  return dust;
}

/**
 * policy/policy.cpp GetDustThreshold: the output's own size plus what
 * spending it adds (148 bytes for a legacy input, 67 vbytes for a witness
 * one), at the dust rate. An unspendable output is never dust.
 */
export function dustThreshold(script: Buffer, ratePerKvB: number): number {
  if ((script.length > 0 && script[0] === OP_RETURN) || script.length > MAX_SCRIPT_SIZE) return 0;
  const outputSize = 8 + compactSizeLength(script.length) + script.length;
  const spendSize = witnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return feeAt(ratePerKvB, outputSize + spendSize);
}

/**
 * policy/policy.cpp AreInputsStandard: every spent output of a known type
 * (no unknown witness version), P2SH redeem scripts of at most 15 sigops,
 * and since Core 30 at most 2,500 legacy sigops in all (CheckSigopsBIP54).
 */
function areInputsStandard(tx: DecodedTx, prevouts: Buffer[], rules: RuleParameters): boolean {
  if (rules.maxLegacySigops !== undefined) {
    let sigops = 0;
    for (let i = 0; i < tx.inputs.length; i++) {
      const scriptSig = Buffer.from(tx.inputs[i]!.scriptSig, 'hex');
      sigops += scriptSigOpCount(scriptSig, true);
      // CScript::GetSigOpCount(scriptSig): a P2SH output counts its redeem script, any other its own script.
      const prevout = prevouts[i]!;
      sigops += isPayToScriptHash(prevout) ? scriptSigOpCount(lastPush(scriptSig) ?? Buffer.alloc(0), true) : scriptSigOpCount(prevout, true);
      if (sigops > rules.maxLegacySigops) return false;
    }
  }
  for (let i = 0; i < tx.inputs.length; i++) {
    const kind = outputType(prevouts[i]!).type;
    if (kind === 'nonstandard' || kind === 'witness_unknown') return false;
    if (kind === 'scripthash') {
      const stack = scriptSigStack(Buffer.from(tx.inputs[i]!.scriptSig, 'hex'));
      if (!stack || stack.length === 0) return false;
      if (scriptSigOpCount(stack.at(-1)!, true) > MAX_P2SH_SIGOPS) return false;
    }
  }
  return true;
}

/** policy/policy.cpp IsWitnessStandard: witness data only where a witness program asks for it, within the per-kind limits. */
function isWitnessStandard(tx: DecodedTx, prevouts: Buffer[]): boolean {
  for (let i = 0; i < tx.inputs.length; i++) {
    const input = tx.inputs[i]!;
    if (input.witness.length === 0) continue;
    let script = prevouts[i]!;
    // Witness stuffing: a pay-to-anchor output is spent with an empty witness.
    if (isPayToAnchor(script)) return false;
    let wrapped = false;
    if (isPayToScriptHash(script)) {
      const stack = scriptSigStack(Buffer.from(input.scriptSig, 'hex'));
      if (!stack || stack.length === 0) return false;
      script = stack.at(-1)!;
      wrapped = true;
    }
    const program = witnessProgram(script);
    if (!program) return false;
    const items = input.witness.map((w) => w.length / 2);
    if (program.version === 0 && program.program.length === WITNESS_V0_SCRIPTHASH_SIZE) {
      if (items.at(-1)! > MAX_STANDARD_P2WSH_SCRIPT_SIZE) return false;
      if (items.length - 1 > MAX_STANDARD_P2WSH_STACK_ITEMS) return false;
      if (items.slice(0, -1).some((size) => size > MAX_STANDARD_P2WSH_STACK_ITEM_SIZE)) return false;
    }
    if (program.version === 1 && program.program.length === WITNESS_V1_TAPROOT_SIZE && !wrapped) {
      let stack = input.witness;
      if (stack.length >= 2 && stack.at(-1)!.length > 0 && parseInt(stack.at(-1)!.slice(0, 2), 16) === ANNEX_TAG) return false;
      if (stack.length >= 2) {
        const control = stack.at(-1)!;
        if (control.length === 0) return false;
        stack = stack.slice(0, -2);
        const leafVersion = parseInt(control.slice(0, 2), 16) & TAPROOT_LEAF_MASK;
        if (leafVersion === TAPROOT_LEAF_TAPSCRIPT && stack.some((item) => item.length / 2 > MAX_STANDARD_TAPSCRIPT_STACK_ITEM_SIZE)) return false;
      } else if (stack.length === 0) {
        return false;
      }
    }
  }
  return true;
}

/**
 * The stack a push-only scriptSig leaves (EvalScript with no flags): each
 * push's data, OP_n as its number; undefined where Core's evaluation fails
 * (a push over 520 bytes, OP_RESERVED, or a malformed push).
 */
function scriptSigStack(scriptSig: Buffer): Buffer[] | undefined {
  const stack: Buffer[] = [];
  let pos = 0;
  while (pos < scriptSig.length) {
    // script/script.h MAX_STACK_SIZE: evaluation fails past 1,000 elements.
    if (stack.length >= MAX_STACK_SIZE) return undefined;
    const read = readOp(scriptSig, pos);
    if (!read) return undefined;
    pos = read.next;
    const { opcode, data } = read.op;
    if (opcode === OP_0) stack.push(Buffer.alloc(0));
    else if (opcode <= 0x4e) {
      if (data.length > MAX_SCRIPT_ELEMENT_SIZE) return undefined;
      stack.push(data);
    } else if (opcode === OP_1NEGATE) stack.push(Buffer.from([0x81]));
    else if (opcode >= OP_1 && opcode <= OP_16) stack.push(Buffer.from([opcode - OP_1 + 1]));
    else if (opcode === OP_RESERVED) return undefined;
    else return undefined;
  }
  return stack;
}

/** The version as Core reads it: a signed 32-bit integer (0xffffffff is -1). */
function signedVersion(tx: DecodedTx): number {
  return tx.version | 0;
}

/** The size without witness data: weight = 3 × stripped + total. */
function strippedSize(tx: DecodedTx): number {
  return (tx.weight - tx.size) / 3;
}
