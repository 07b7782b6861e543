import type { RpcCaller } from '../rpc-caller.ts';
import type { MempoolTxView, MempoolView } from './mempool-view.ts';

/**
 * The node's own next block (`getblocktemplate`) against the projection's
 * block 0, and the node's block as the truth for block 0 when they differ.
 *
 * The projection rebuilds Core's ancestor-score block assembly from the
 * mirror. The node may build otherwise: a `prioritisetransaction` the mirror
 * has not heard of (no notification carries it), a pool's patched block
 * policy, Core 31's cluster linearization. What the pool mines is what its
 * node's template holds, so when the two differ, block 0's membership, its
 * positions, its fullness and the rate to beat come from the template
 * (`overlayTemplate`), and the rest of the projection stays as it is.
 *
 * The template costs the node a block assembly, so it is asked for at a
 * bounded rate (the engine's `templateCheckEveryMs`, 30 s by default) and
 * dropped as soon as the tip moves on (its transactions are then mined or
 * stale).
 */

/**
 * Core answers getblocktemplate from its last template while that is less
 * than 5 s old (rpc/mining.cpp: a new one only when the tip moved, or the
 * mempool changed and 5 s passed), so a transaction younger than that may be
 * missing from it for that reason alone. With a second of rounding and a
 * margin, younger ones are not judged.
 */
export const TEMPLATE_REUSE_MS = 7_000;

export interface NodeTemplate {
  /** When the node answered (Unix ms). */
  fetchedAtMs: number;
  /** The block the template builds on. */
  previousBlockHash: string;
  /** In the template's order (parents before children). */
  txids: string[];
  weights: number[];
  /** The weight of its transactions (the coinbase not included). */
  weight: number;
}

/** What `getblocktemplate` answers, the fields used here (Core's src/rpc/mining.cpp). */
interface TemplateAnswer {
  previousblockhash: string;
  transactions: Array<{ txid: string; weight: number }>;
}

export async function fetchNodeTemplate(rpc: RpcCaller, now: () => number): Promise<NodeTemplate> {
  const answer = await rpc.call<TemplateAnswer>('getblocktemplate', [{ rules: ['segwit'] }]);
  const txids = answer.transactions.map((t) => t.txid);
  const weights = answer.transactions.map((t) => t.weight);
  return { fetchedAtMs: now(), previousBlockHash: answer.previousblockhash, txids, weights, weight: weights.reduce((a, b) => a + b, 0) };
}

export interface TemplateComparison {
  checkedAtMs: number;
  /** The tip both were built on. */
  tipHash: string;
  templateTxs: number;
  projectionTxs: number;
  /** In the node's block 0, not in the projection's (among transactions the projection knew). */
  templateOnly: number;
  /** In the projection's block 0, not in the node's. */
  projectionOnly: number;
  /** The weight both blocks hold over the larger block's weight, counting the transactions both could judge: 1 when they hold the same ones. */
  agreement: number;
  /** Not judged: the node's transactions the projection had not placed yet, and the projection's too young for the template to hold (TEMPLATE_REUSE_MS). */
  unseen: number;
}

/**
 * Compares the projection's block 0 with the node's. Undefined when they are
 * not built on the same tip (a block arrived in between: nothing to compare).
 */
export function compareTemplate(view: MempoolView, template: NodeTemplate): TemplateComparison | undefined {
  if (view.tip.hash !== template.previousBlockHash) return undefined;
  const projected = new Set(view.nextBlockTxids());
  let templateOnly = 0;
  let unseen = 0;
  let sharedWeight = 0;
  let templateOnlyWeight = 0;
  for (let i = 0; i < template.txids.length; i++) {
    const txid = template.txids[i]!;
    if (projected.has(txid)) {
      sharedWeight += template.weights[i]!;
    } else if (!view.transaction(txid)?.projected) {
      unseen++;
    } else {
      templateOnly++;
      templateOnlyWeight += template.weights[i]!;
    }
  }
  const inTemplate = new Set(template.txids);
  let projectionOnly = 0;
  let projectionOnlyWeight = 0;
  for (const txid of projected) {
    if (inTemplate.has(txid)) continue;
    const tx = view.transaction(txid);
    if (oldEnough(tx, template)) {
      projectionOnly++;
      projectionOnlyWeight += tx!.weight;
    } else {
      unseen++;
    }
  }
  // Over what both could judge: what neither could is no disagreement.
  const larger = sharedWeight + Math.max(templateOnlyWeight, projectionOnlyWeight);
  return {
    checkedAtMs: template.fetchedAtMs,
    tipHash: template.previousBlockHash,
    templateTxs: template.txids.length,
    projectionTxs: projected.size,
    templateOnly,
    projectionOnly,
    agreement: larger === 0 ? 1 : sharedWeight / larger,
    unseen,
  };
}

/** In the mempool long enough before the template was asked for that the template judged it (TEMPLATE_REUSE_MS). */
const oldEnough = (tx: { firstSeen: number } | undefined, template: NodeTemplate) => tx !== undefined && tx.firstSeen * 1000 <= template.fetchedAtMs - TEMPLATE_REUSE_MS;

/** Whether block 0 should follow the node: some transaction the projection knew is in one block and not the other. */
export const templateDiffers = (comparison: TemplateComparison) => comparison.templateOnly > 0 || comparison.projectionOnly > 0;

/**
 * The view with block 0 as the node builds it:
 * - a transaction in the node's template is in block 0, at its place in the
 *   template's order (vbytes from the start of the block up to and including it);
 * - a transaction the projection put in block 0, that the node already held
 *   when it built its template (TEMPLATE_REUSE_MS) and left out, is in
 *   block 1 (its place there unknown: at least its own vbytes in);
 * - a transaction newer than the template keeps the projection's answer (the
 *   node's next template will judge it as the projection did);
 * - the rate to beat, when the node's block is full, is the lowest rate at
 *   which the projection would take a transaction the node also takes: the
 *   ones the node favours beyond their fee (prioritised) set no bar a fee
 *   could clear, and the ones it leaves out no longer count.
 * Every other block, and every other figure, is the projection's.
 */
export function overlayTemplate(view: MempoolView, template: NodeTemplate): MempoolView {
  const place = new Map<string, number>();
  let vsize = 0;
  let weight = 0;
  let fees = 0;
  const members: string[] = [];
  for (let i = 0; i < template.txids.length; i++) {
    const txid = template.txids[i]!;
    const tx = view.transaction(txid);
    if (!tx) continue; // mined, replaced, or not seen yet: the view cannot place it
    vsize += tx.vsize;
    weight += template.weights[i]!;
    fees += tx.fee;
    place.set(txid, vsize);
    members.push(txid);
  }
  const transaction = (txid: string): MempoolTxView | undefined => {
    const tx = view.transaction(txid);
    if (!tx) return tx;
    const at = place.get(txid);
    if (at !== undefined) return { ...tx, projected: true, position: { block: 0, vsize: at } };
    if (tx.position?.block === 0 && oldEnough(tx, template)) return { ...tx, position: { block: 1, vsize: tx.vsize } };
    return tx;
  };
  const first = view.blocks[0];
  const limit = view.blockWeightLimit;
  // As rate-to-beat.ts judges the projection's block 0: 99% of the weight it may hold, and something left for later.
  const full = weight >= limit * 0.99 && view.mempool.txCount > members.length;
  let lowest = Number.POSITIVE_INFINITY;
  if (full) {
    for (const txid of members) {
      const tx = view.transaction(txid);
      const rate = tx?.position?.block === 0 ? tx.functionalRate : null;
      if (rate != null && rate < lowest) lowest = rate;
    }
  }
  const marketRate = full && Number.isFinite(lowest) ? Math.max(lowest, view.minRelayRate) : full ? view.marketRate : view.minRelayRate;
  const blocks = first
    ? [{ ...first, txCount: members.length, weight, vsize, totalFees: fees, minRate: full ? marketRate : first.minRate }, ...view.blocks.slice(1)]
    : view.blocks;
  return {
    ...view,
    marketRate,
    nextBlockFull: full,
    blocks,
    transaction,
    nextBlockTxids: () => [...members],
  };
}
