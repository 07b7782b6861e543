import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { RpcError, RpcTransportError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { decodeTxHex } from '../../bitcoin/tx-codec.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import { normaliseItems } from './tx-decoding.ts';
import { withoutOtherIds } from '../disclosure/public-disclosure.ts';

/**
 * PSBTs (BIP174/BIP370) as users hold them: base64 text from a wallet, or the
 * hex of the binary form. A PSBT is recognised by content, never by a flag,
 * so every place that takes a transaction hex takes a PSBT too.
 *
 * The node is the oracle for everything a PSBT means: `finalizepsbt` builds the
 * final scripts and extracts the transaction, `analyzepsbt` says what a
 * non-final input still lacks, `decodepsbt` reads the fee the PSBT states. We
 * never finalize or sign ourselves.
 */

/** "psbt" followed by 0xff, the BIP174 magic. */
const MAGIC_HEX = '70736274ff';
/** The same five bytes in base64 ("cHNidP8" encodes "psbt\xff" plus the first bits of the next byte). */
const MAGIC_BASE64 = 'cHNidP8';
const HEX = /^[0-9a-fA-F]*$/;

/** A PSBT recognised in user input, in the base64 form the node's RPCs take. */
export interface PsbtEntry {
  base64: string;
}

/**
 * The entry as a PSBT in base64, or undefined when it is not one (then it is
 * treated as a raw transaction hex, as before). Whitespace anywhere is not
 * meaningful in either encoding and is dropped.
 */
export function recognisePsbt(entry: string): PsbtEntry | undefined {
  const text = entry.replace(/\s+/g, '');
  if (text.startsWith(MAGIC_BASE64)) return { base64: text };
  if (text.toLowerCase().startsWith(MAGIC_HEX)) {
    // Odd or non-hex text after the magic is passed on as it is: the node's
    // decoder then names the problem instead of us guessing.
    if (text.length % 2 !== 0 || !HEX.test(text)) return { base64: text };
    return { base64: Buffer.from(text, 'hex').toString('base64') };
  }
  return undefined;
}

/** A PSBT the node finalized: the transaction to price and submit. */
export interface FinalizedPsbt {
  ok: true;
  hex: string;
  txid: string;
  /** The fee the PSBT itself states (sum of its inputs' UTXOs minus outputs); null when it does not carry every input's UTXO. */
  statedFeeSats: number | null;
}

/** A PSBT that cannot be submitted, with what the user must do about it. */
export interface UnusablePsbt {
  ok: false;
  message: string;
}

interface DecodedPsbt {
  tx: { txid?: string; vin: Array<{ txid: string; vout: number }> };
  fee?: number;
}

interface FinalizeResult {
  complete: boolean;
  hex?: string;
}

interface AnalyzedInput {
  has_utxo: boolean;
  is_final: boolean;
  missing?: { pubkeys?: string[]; signatures?: string[]; redeemscript?: string; witnessscript?: string };
  next?: string;
}

interface AnalyzeResult {
  inputs?: AnalyzedInput[];
  next: string;
  error?: string;
}

/**
 * Finalizes and extracts a PSBT on the node. A PSBT that is unreadable or not
 * fully signed yields a message naming each input and what it lacks; it is
 * never submitted. Transport failures (node down) propagate unchanged, so the
 * caller's node-down handling applies as for a hex.
 */
export async function finalizePsbt(rpc: RpcClient, psbt: PsbtEntry): Promise<FinalizedPsbt | UnusablePsbt> {
  let decoded: DecodedPsbt;
  // The refusals leave through the disclosure module, as every submission refusal does (submission-pipeline.ts):
  // they may name the PSBT's own transaction and the outputs it spends, which its holder wrote; nothing else.
  try {
    decoded = await rpc.call<DecodedPsbt>('decodepsbt', [psbt.base64]);
  } catch (error) {
    if (error instanceof RpcError) return { ok: false, message: withoutOtherIds(`This PSBT cannot be read: ${error.message}.`, new Set()) };
    throw error;
  }
  const finalized = await rpc.call<FinalizeResult>('finalizepsbt', [psbt.base64, true]);
  const statedFeeSats = decoded.fee === undefined ? null : btcToSats(decoded.fee);
  if (finalized.complete && finalized.hex) {
    return { ok: true, hex: finalized.hex, txid: decodeTxHex(finalized.hex).txid, statedFeeSats };
  }
  const analysis = await rpc.call<AnalyzeResult>('analyzepsbt', [psbt.base64]);
  const own = new Set([...(decoded.tx.txid ? [decoded.tx.txid] : []), ...decoded.tx.vin.map((input) => input.txid)]);
  return { ok: false, message: withoutOtherIds(incompleteMessage(decoded, analysis), own) };
}

/** "This PSBT is not ready to submit: input 0 (txid:vout) lacks ...; input 1 ..." */
export function incompleteMessage(decoded: DecodedPsbt, analysis: AnalyzeResult): string {
  const intro = 'This PSBT is not fully signed, so it was not submitted.';
  if (analysis.error) return `${intro} The node says: ${analysis.error}.`;
  const problems = (analysis.inputs ?? []).flatMap((input, index) => {
    if (input.is_final) return [];
    const prevout = decoded.tx.vin[index];
    const where = prevout ? `Input ${index} (${prevout.txid}:${prevout.vout})` : `Input ${index}`;
    return [`${where} ${whatInputLacks(input)}`];
  });
  if (problems.length === 0) return `${intro} The node could not finalize it (next step: ${analysis.next}).`;
  return `${intro} ${problems.join('; ')}. Sign it in your wallet and finalize it, then paste it again.`;
}

function whatInputLacks(input: AnalyzedInput): string {
  if (!input.has_utxo) return 'does not include the output it spends (a witness_utxo or non_witness_utxo record)';
  const missing = input.missing;
  const lacks: string[] = [];
  const signatures = missing?.signatures?.length ?? 0;
  if (signatures > 0) lacks.push(`${signatures === 1 ? 'a signature' : `signatures`} from ${plural(signatures, 'key')} (key hash ${missing!.signatures!.join(', ')})`);
  const pubkeys = missing?.pubkeys?.length ?? 0;
  if (pubkeys > 0) lacks.push(`${plural(pubkeys, 'public key')} (key hash ${missing!.pubkeys!.join(', ')})`);
  if (missing?.redeemscript) lacks.push(`its redeem script (hash ${missing.redeemscript})`);
  if (missing?.witnessscript) lacks.push(`its witness script (hash ${missing.witnessscript})`);
  if (lacks.length === 0) return `is not final (next step: ${input.next ?? 'finalizer'})`;
  return `lacks ${lacks.join(' and ')}`;
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * What a submission path sends on: a raw hex as it came, or the transaction a
 * PSBT finalizes to. A PSBT that cannot be used is a 400 with the node's
 * explanation; the node out of reach is its usual 503 (nothing was sent, and
 * the user still holds the PSBT).
 */
export async function hexForSubmission(rpc: RpcClient, entry: string): Promise<string> {
  const psbt = recognisePsbt(entry);
  if (!psbt) return entry;
  let result: FinalizedPsbt | UnusablePsbt;
  try {
    result = await finalizePsbt(rpc, psbt);
  } catch (error) {
    throw nodeFailure(error);
  }
  if (!result.ok) throw new ApiError(400, result.message);
  return result.hex;
}

/** Each package member's hex, PSBT members finalized; a member that cannot be used is named by its place. */
export async function packageHexesForSubmission(rpc: RpcClient, entries: string[]): Promise<string[]> {
  const hexes: string[] = [];
  for (const [i, entry] of normaliseItems(entries).entries()) {
    try {
      hexes.push(await hexForSubmission(rpc, entry));
    } catch (error) {
      if (error instanceof ApiError && error.statusCode === 400) throw new ApiError(400, `Transaction ${i + 1} of the package: ${error.message}`);
      throw error;
    }
  }
  return hexes;
}

/** A parse entry as decoding sees it: a hex (from a PSBT or as pasted), or why a PSBT gave none. */
export type ParseEntry = { hex: string; psbt?: { statedFeeSats: number | null } } | { error: string };

/** Parse entries with PSBTs finalized; parsing reports an unusable PSBT in its row instead of failing the answer. */
export async function entriesForParse(rpc: RpcClient, entries: string[]): Promise<ParseEntry[]> {
  const resolved: ParseEntry[] = [];
  for (const entry of entries) {
    const psbt = recognisePsbt(entry);
    if (!psbt) {
      resolved.push({ hex: entry });
      continue;
    }
    try {
      const result = await finalizePsbt(rpc, psbt);
      resolved.push(result.ok ? { hex: result.hex, psbt: { statedFeeSats: result.statedFeeSats } } : { error: result.message });
    } catch (error) {
      if (!(error instanceof RpcError || error instanceof RpcTransportError)) throw error;
      resolved.push({ error: 'This PSBT could not be finalized because the mining node is not reachable right now.' });
    }
  }
  return resolved;
}
