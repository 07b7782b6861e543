import { RpcCode, type RpcBatchItem, type RpcCall, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { sigopAdjustedVsize } from '@slipstream/mempool-engine/bitcoin/virtual-size';
import { transactionSigOpCost } from '../../bitcoin/sigops.ts';
import { decodeTxHex, type DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { AncestorPackage } from '../pricing/fee-math.ts';
import type { PortalTxids } from './portal-records.repository.ts';

/**
 * Works out what each transaction pays, from the outputs it spends:
 * - confirmed coins from the UTXO set (gettxout without the mempool, so a coin
 *   already spent by a transaction this one replaces still counts: RBF);
 * - outputs of unconfirmed parents in the node's mempool (their raw hex, not
 *   verbose JSON), when the portal recorded them;
 * - outputs of earlier transactions in the same package;
 * - outputs of parents that are not the portal's but that child-pays-for-
 *   parent may still price with (`outside`, offered-parents.repository.ts,
 *   public-mempool.ts): public ones (the public network's mempool holds
 *   them; priced from the pool node's mempool entry, like the portal's), and
 *   ones this submitter gave (their hex, earlier or in this request; priced
 *   from that hex, the node is not asked about them, and they must then be
 *   sent with the child).
 * It also collects the unconfirmed ancestors a single submission would be
 * mined with, for child-pays-for-parent pricing: only those three kinds.
 *
 * The pool's mempool is private until mined (docs/behaviour.md#private-until-mined): an input
 * spending a transaction the node holds but the portal did not record is
 * priced exactly as one spending an outpoint nobody knows, by the same
 * calls (the node's mempool is never asked about it), so no answer built
 * on this says what that transaction pays or that it exists. Whether a
 * parent is public or given is decided without the pool node (the public
 * node's mempool, the submitter's own offers), by the same calls for a
 * private parent as for an unknown one.
 *
 * The node is asked in batches: one round trip for all coins, more only
 * when some inputs spend unconfirmed parents.
 */

export interface Outpoint {
  txid: string;
  vout: number;
}

export interface PricedTx {
  tx: DecodedTx;
  /** The size it is priced by: sigop-adjusted virtual size (vB). */
  vsize: number;
  /** Total fee in sats, or undefined when some spent output is unknown to the node. */
  fee: number | undefined;
  missingInputs: Outpoint[];
  /**
   * Unconfirmed transactions this one depends on, directly or not (not
   * package members), that the portal recorded, that are public, or that
   * the submitter gave (`givenParents`, not in the pool's mempool).
   */
  mempoolAncestors: AncestorPackage[];
  /** What each input spends (value and scriptPubKey), undefined where unknown: the signature check reads it. */
  spent: Array<{ value: number; script: string } | undefined>;
  /** Parents the submitter gave that it spends: it enters only with them, as a package (parents first). */
  givenParents: GivenParent[];
}

export interface GivenParent {
  txid: string;
  hex: string;
}

/**
 * Parents that are not the portal's own, that child-pays-for-parent may
 * still price with. Both are asked about the same txids, whatever the
 * pool's node holds.
 */
export interface OutsideParents {
  /** Of these txids, those the public network's mempool holds (PUBLIC_MEMPOOL_RPC_URL). */
  publicTxids(txids: readonly string[]): Promise<Set<string>>;
  /** Of these txids, those this submitter gave: their raw hex. */
  givenHexes(txids: readonly string[]): Promise<Map<string, string>>;
}

interface TxOutReply {
  value: number;
  scriptPubKey: { hex: string };
}

interface MempoolEntryReply {
  vsize: number;
  fees: { base: number };
}

const BATCH_SIZE = 1_000;
/** More unconfirmed parents than this and the fee is left to the node's verdict (see round trip 2). */
export const MAX_UNCONFIRMED_PARENTS = 100;

async function batchInChunks<T>(rpc: RpcClient, calls: RpcCall[]) {
  const out = [];
  for (let i = 0; i < calls.length; i += BATCH_SIZE) out.push(...(await rpc.batch<T>(calls.slice(i, i + BATCH_SIZE))));
  return out;
}

const key = (o: Outpoint) => `${o.txid}:${o.vout}`;

/**
 * A batch answer, or undefined when the node says there is no such
 * transaction (-5). Any other failure is thrown: the node did not answer (it
 * is warming up after a restart, ...), which says nothing about the input,
 * and must not come out as "missing inputs" to a user whose inputs exist.
 */
function found<T>(item: RpcBatchItem<T> | undefined): T | undefined {
  if (item === undefined) return undefined;
  if (item.ok) return item.result;
  if (item.error.code === RpcCode.INVALID_ADDRESS_OR_KEY) return undefined;
  throw item.error;
}

export interface PricingOptions {
  /** The node's -bytespersigop (DEFAULT_BYTES_PER_SIGOP unless the node sets it). */
  bytesPerSigop: number;
  /** Which transactions the portal recorded: only those (and public ones) are looked up in the node's mempool. */
  portalTxids: PortalTxids;
  /** Public parents and parents the submitter gave; none without. */
  outside?: OutsideParents | undefined;
}

const NOTHING_OUTSIDE: OutsideParents = { publicTxids: () => Promise.resolve(new Set()), givenHexes: () => Promise.resolve(new Map()) };

export async function priceTransactions(rpc: RpcClient, txs: DecodedTx[], options: PricingOptions): Promise<PricedTx[]> {
  const inPackage = new Map(txs.map((t) => [t.txid, t]));
  /** Spent outputs found so far: value and script (the script counts towards sigops). */
  const coins = new Map<string, { value: number; script: string }>();

  // Round trip 1: every outside coin against the UTXO set.
  const outside: Outpoint[] = [];
  const seen = new Set<string>();
  for (const tx of txs) {
    for (const input of tx.inputs) {
      const parent = inPackage.get(input.txid);
      if (parent) {
        const output = parent.outputs[input.vout];
        if (output) coins.set(key(input), { value: output.value, script: output.scriptPubKey });
        continue;
      }
      const k = key(input);
      if (!seen.has(k)) {
        seen.add(k);
        outside.push({ txid: input.txid, vout: input.vout });
      }
    }
  }
  const utxos = await batchInChunks<TxOutReply | null>(rpc, outside.map((o) => ({ method: 'gettxout', params: [o.txid, o.vout, false] })));
  const unresolvedParents = new Set<string>();
  outside.forEach((o, i) => {
    // null: spent, or never existed (maybe an output of an unconfirmed parent).
    const coin = found(utxos[i]);
    if (coin) coins.set(key(o), { value: btcToSats(coin.value), script: coin.scriptPubKey.hex });
    else unresolvedParents.add(o.txid);
  });

  // Round trip 2: which of the other parents are the portal's own and in the
  // mempool. The portal's records are asked first, so that a parent it did
  // not record costs the node nothing, as a made-up one does. Past a bound
  // the answer cannot matter (the node's ancestor limits refuse such a chain
  // long before), and looking up thousands of made-up parents would let one
  // request make the node do unbounded work: the fee is then unknown.
  const unresolved = [...unresolvedParents];
  const entries = new Map<string, AncestorPackage>();
  const ancestorsOf = new Map<string, string[]>();
  const given = new Map<string, GivenParent>();
  if (unresolved.length > 0 && unresolved.length <= MAX_UNCONFIRMED_PARENTS) {
    const outside = options.outside ?? NOTHING_OUTSIDE;
    const ours = await options.portalTxids(unresolved);
    // The others: public ones are looked up in the pool node's mempool like
    // the portal's; given ones are priced from their hex. The same two
    // questions for every other parent, neither of them to the pool's node.
    const others = unresolved.filter((p) => !ours.has(p));
    const [publicIds, givenHexes] = others.length === 0 ? [new Set<string>(), new Map<string, string>()] : await Promise.all([outside.publicTxids(others), outside.givenHexes(others)]);
    const parents = unresolved.filter((p) => ours.has(p) || publicIds.has(p));
    const replies = parents.length === 0 ? [] : await rpc.batch<MempoolEntryReply>(parents.map((p) => ({ method: 'getmempoolentry', params: [p] })));
    const inMempool = parents.filter((p, i) => {
      const entry = found(replies[i]);
      if (entry) entries.set(p, toPackage(entry));
      return entry !== undefined;
    });
    // Round trip 3, only for the portal's parents in the mempool: their outputs
    // (raw hex, not verbose JSON) and their own ancestors.
    const details = inMempool.length === 0 ? [] : await rpc.batch<unknown>(
      inMempool.flatMap((p) => [
        { method: 'getrawtransaction', params: [p, 0] },
        { method: 'getmempoolancestors', params: [p, false] },
      ]),
    );
    inMempool.forEach((p, i) => {
      const raw = found(details[i * 2]) as string | undefined;
      const ancestors = found(details[i * 2 + 1]) as string[] | undefined;
      // Mined or evicted between the two calls: its outputs stay unknown.
      if (raw === undefined || ancestors === undefined) {
        entries.delete(p);
        return;
      }
      ancestorsOf.set(p, ancestors);
      decodeTxHex(raw).outputs.forEach((output, vout) => {
        const k = key({ txid: p, vout });
        if (seen.has(k)) coins.set(k, { value: output.value, script: output.scriptPubKey });
      });
    });
    // Round trip 4, rare: ancestors further up that are not direct parents,
    // when the portal recorded them or they are public. Another one the node
    // holds is left out of the package the child is judged with, as if it
    // were not there: its fee and size are the pool's to keep (docs/behaviour.md#private-until-mined).
    const upstream = [...new Set([...ancestorsOf.values()].flat())].filter((id) => !entries.has(id));
    const recordedUpstream = upstream.length === 0 ? new Set<string>() : await options.portalTxids(upstream);
    const otherUpstream = upstream.filter((id) => !recordedUpstream.has(id));
    const publicUpstream = otherUpstream.length === 0 ? new Set<string>() : await outside.publicTxids(otherUpstream);
    const further = upstream.filter((id) => recordedUpstream.has(id) || publicUpstream.has(id));
    const ancestorReplies = await batchInChunks<MempoolEntryReply>(rpc, further.map((id) => ({ method: 'getmempoolentry', params: [id] })));
    further.forEach((id, i) => {
      const entry = found(ancestorReplies[i]);
      if (entry) entries.set(id, toPackage(entry));
    });

    // Given parents not found above, priced from their own hex.
    const offered = [...givenHexes].filter(([id]) => !entries.has(id));
    for (const parent of await priceGiven(rpc, offered, options.bytesPerSigop)) {
      entries.set(parent.tx.txid, { feeSats: parent.fee, vsize: parent.vsize });
      given.set(parent.tx.txid, { txid: parent.tx.txid, hex: givenHexes.get(parent.tx.txid)! });
      parent.tx.outputs.forEach((output, vout) => {
        const k = key({ txid: parent.tx.txid, vout });
        if (seen.has(k)) coins.set(k, { value: output.value, script: output.scriptPubKey });
      });
    }
  }

  return txs.map((tx) => {
    const missingInputs: Outpoint[] = [];
    let inputSum = 0;
    const ancestorIds = new Set<string>();
    const scripts: Array<string | undefined> = [];
    const spent: PricedTx['spent'] = [];
    const givenParents = new Map<string, GivenParent>();
    for (const input of tx.inputs) {
      const coin = coins.get(key(input));
      scripts.push(coin?.script);
      spent.push(coin);
      if (coin === undefined) missingInputs.push({ txid: input.txid, vout: input.vout });
      else inputSum += coin.value;
      if (entries.has(input.txid) && !inPackage.has(input.txid)) {
        ancestorIds.add(input.txid);
        for (const id of ancestorsOf.get(input.txid) ?? []) ancestorIds.add(id);
        const parent = given.get(input.txid);
        if (parent) givenParents.set(parent.txid, parent);
      }
    }
    const outputSum = tx.outputs.reduce((sum, o) => sum + o.value, 0);
    const mempoolAncestors = [...ancestorIds].flatMap((id) => {
      const entry = entries.get(id);
      return entry ? [entry] : [];
    });
    return {
      tx,
      // Priced by the node's own measure: the sigop-adjusted virtual size
      // (policy/policy.cpp GetVirtualTransactionSize), which for bare
      // multisig and other sigop-heavy scripts is several times weight / 4.
      vsize: sigopAdjustedVsize(tx.weight, transactionSigOpCost(tx, scripts), options.bytesPerSigop),
      fee: missingInputs.length === 0 ? inputSum - outputSum : undefined,
      missingInputs,
      mempoolAncestors,
      spent,
      givenParents: [...givenParents.values()],
    };
  });
}

/**
 * Parents a submitter gave, priced from their hex: only those spending
 * confirmed coins alone (one more round trip, against the UTXO set), with a
 * fee of zero or more. Such a parent and its child make the one-parent-one-
 * child package the node's submitpackage takes a parent below the mempool
 * minimum in (Bitcoin Core policy/packages.h; Knots 29 still refuses one
 * below -minrelaytxfee). One that spends unconfirmed outputs itself is not
 * priced, and its child's inputs stay unknown.
 */
async function priceGiven(rpc: RpcClient, offered: Array<[string, string]>, bytesPerSigop: number): Promise<Array<PricedTx & { fee: number }>> {
  const txs = offered.flatMap(([id, hex]) => {
    try {
      const tx = decodeTxHex(hex);
      return tx.txid === id ? [tx] : [];
    } catch {
      // Stored after decoding: a row that no longer decodes is no parent.
      return [];
    }
  });
  if (txs.length === 0) return [];
  // Each one alone: none of them is another's package parent, and no mempool is looked into.
  const ids = new Set(txs.map((t) => t.txid));
  const standalone = txs.filter((t) => t.inputs.every((i) => !ids.has(i.txid)));
  const priced = await priceTransactions(rpc, standalone, { bytesPerSigop, portalTxids: () => Promise.resolve(new Set()) });
  return priced.filter((p): p is PricedTx & { fee: number } => p.fee !== undefined && p.fee >= 0);
}

function toPackage(entry: MempoolEntryReply): AncestorPackage {
  return { feeSats: btcToSats(entry.fees.base), vsize: entry.vsize };
}
