import { isPayToScriptHash, lastPush, scriptSigOpCount, witnessProgram, WITNESS_V0_KEYHASH_SIZE, WITNESS_V0_SCRIPTHASH_SIZE } from './script.ts';
import { WITNESS_SCALE_FACTOR, type DecodedTx } from './tx-codec.ts';

/**
 * Signature-operation cost, exactly as Bitcoin Core computes it for mempool
 * acceptance and fee rates; the sigop-adjusted virtual size made from it is
 * the mempool engine's (mempool-engine/src/bitcoin/virtual-size.ts), which
 * reads the node's mempool in the same unit.
 *
 * Why: the node does not price a transaction by ceil(weight / 4) alone. Its
 * mempool entry, `testmempoolaccept`, `getmempoolentry` and block templates
 * all use `GetVirtualTransactionSize(weight, sigop_cost, -bytespersigop)`
 * (policy/policy.cpp), which charges `bytes_per_sigop` virtual bytes per
 * sigop when that exceeds the weight. Transactions with bare multisig outputs
 * (Stamps, Counterparty) carry 80 sigop cost per output and are routinely
 * priced by sigops, not weight; quoting ceil(weight / 4) to their senders
 * would overstate their fee rate several times over.
 *
 * The sigop cost is Core's `GetTransactionSigOpCost` (consensus/tx_verify.cpp)
 * with the flags the mempool passes (STANDARD_SCRIPT_VERIFY_FLAGS, which
 * include SCRIPT_VERIFY_P2SH and SCRIPT_VERIFY_WITNESS):
 *
 *   legacy  = GetLegacySigOpCount(tx)            × WITNESS_SCALE_FACTOR
 *   p2sh    = GetP2SHSigOpCount(tx, inputs)      × WITNESS_SCALE_FACTOR
 *   witness = Σ CountWitnessSigOps(scriptSig, prevout scriptPubKey, witness)
 *
 * and a coinbase only has the legacy part.
 */

/** The parts of a transaction's sigop cost, each already in cost units (legacy and P2SH × 4). */
export interface SigOpCostParts {
  /** GetLegacySigOpCount × 4: every scriptSig and scriptPubKey, counted inaccurately. */
  legacy: number;
  /** GetP2SHSigOpCount × 4: redeemScripts of inputs spending P2SH, counted accurately. */
  p2sh: number;
  /** Σ CountWitnessSigOps: P2WPKH 1, P2WSH the witness script counted accurately (also P2SH-wrapped). */
  witness: number;
  /** legacy + p2sh + witness: what GetTransactionSigOpCost returns. */
  total: number;
  /**
   * False when some input's prevout script was not given: that input's P2SH
   * and witness sigops (which only the prevout reveals) are missing, so
   * `total` is a lower bound of the node's figure.
   */
  complete: boolean;
}

/**
 * Bitcoin Core's GetTransactionSigOpCost (consensus/tx_verify.cpp) with
 * SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS.
 *
 * `prevoutScripts[i]` is the scriptPubKey (hex) of the output input i spends,
 * `undefined` if unknown; an unknown prevout adds nothing beyond its legacy
 * scriptSig count, so the result is then a lower bound (see
 * `transactionSigOpCostParts(...).complete`). Ignored for a coinbase.
 */
export function transactionSigOpCost(tx: DecodedTx, prevoutScripts: readonly (string | undefined)[]): number {
  return transactionSigOpCostParts(tx, prevoutScripts).total;
}

/** transactionSigOpCost, broken down by Core's three counts. */
export function transactionSigOpCostParts(tx: DecodedTx, prevoutScripts: readonly (string | undefined)[]): SigOpCostParts {
  // GetLegacySigOpCount (consensus/tx_verify.cpp): scriptSig.GetSigOpCount(false)
  // for every input, scriptPubKey.GetSigOpCount(false) for every output.
  let legacy = 0;
  const scriptSigs = tx.inputs.map((input) => Buffer.from(input.scriptSig, 'hex'));
  for (const scriptSig of scriptSigs) legacy += scriptSigOpCount(scriptSig, false);
  for (const output of tx.outputs) legacy += scriptSigOpCount(Buffer.from(output.scriptPubKey, 'hex'), false);
  legacy *= WITNESS_SCALE_FACTOR;

  // GetTransactionSigOpCost returns the legacy count alone for a coinbase.
  if (isCoinbase(tx)) return { legacy, p2sh: 0, witness: 0, total: legacy, complete: true };

  if (prevoutScripts.length !== tx.inputs.length) {
    throw new RangeError(`Expected ${tx.inputs.length} prevout scripts (one per input, undefined if unknown), got ${prevoutScripts.length}`);
  }
  let p2sh = 0;
  let witness = 0;
  let complete = true;
  tx.inputs.forEach((input, i) => {
    const prevoutHex = prevoutScripts[i];
    if (prevoutHex === undefined) {
      complete = false;
      return;
    }
    const prevout = Buffer.from(prevoutHex, 'hex');
    const scriptSig = scriptSigs[i]!;
    // GetP2SHSigOpCount (consensus/tx_verify.cpp) → CScript::GetSigOpCount(scriptSig).
    if (isPayToScriptHash(prevout)) p2sh += p2shSigOpCount(scriptSig);
    witness += countWitnessSigOps(scriptSig, prevout, input.witness);
  });
  p2sh *= WITNESS_SCALE_FACTOR;
  return { legacy, p2sh, witness, total: legacy + p2sh + witness, complete };
}

/** CTransaction::IsCoinBase: exactly one input, spending the null outpoint (all-zero hash, index 0xffffffff). */
export function isCoinbase(tx: DecodedTx): boolean {
  const only = tx.inputs.length === 1 ? tx.inputs[0] : undefined;
  return only !== undefined && only.vout === 0xffff_ffff && /^0{64}$/.test(only.txid);
}

/**
 * script/script.cpp CScript::GetSigOpCount(const CScript& scriptSig) for a
 * P2SH scriptPubKey: the accurate count of the redeemScript, 0 if the
 * scriptSig is not push-only or is malformed.
 */
function p2shSigOpCount(scriptSig: Buffer): number {
  const redeemScript = lastPush(scriptSig);
  return redeemScript === undefined ? 0 : scriptSigOpCount(redeemScript, true);
}

/**
 * script/interpreter.cpp WitnessSigOps: P2WPKH counts 1, P2WSH the accurate
 * count of its witness script (the last witness item; 0 with an empty
 * witness). Taproot (BIP342 uses a per-input budget instead) and unknown
 * versions count 0.
 */
function witnessSigOps(version: number, program: Buffer, witness: readonly string[]): number {
  if (version !== 0) return 0;
  if (program.length === WITNESS_V0_KEYHASH_SIZE) return 1;
  if (program.length === WITNESS_V0_SCRIPTHASH_SIZE && witness.length > 0) {
    return scriptSigOpCount(Buffer.from(witness[witness.length - 1]!, 'hex'), true);
  }
  return 0;
}

/**
 * script/interpreter.cpp CountWitnessSigOps with SCRIPT_VERIFY_WITNESS: a
 * native witness program, or a P2SH whose push-only scriptSig's last push is
 * one (BIP141 P2SH-wrapped segwit).
 */
function countWitnessSigOps(scriptSig: Buffer, prevout: Buffer, witness: readonly string[]): number {
  const native = witnessProgram(prevout);
  if (native !== undefined) return witnessSigOps(native.version, native.program, witness);
  if (isPayToScriptHash(prevout)) {
    const redeemScript = lastPush(scriptSig);
    const wrapped = redeemScript === undefined ? undefined : witnessProgram(redeemScript);
    if (wrapped !== undefined) return witnessSigOps(wrapped.version, wrapped.program, witness);
  }
  return 0;
}
