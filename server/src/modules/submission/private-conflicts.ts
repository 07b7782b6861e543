import { RpcError, RpcTransportError, type RpcCall, type RpcClient } from '../../bitcoin/rpc-client.ts';
import { explainRejectReason } from '../../bitcoin/reject-reasons.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import type { PortalTxids } from './portal-records.repository.ts';

/**
 * The node's reasons for refusing a transaction, told to the public caller
 * only when they say nothing about the pool's private mempool
 * (docs/behaviour.md#private-until-mined).
 *
 * Bitcoin Core and Knots look for conflicting spends before they check
 * scripts (validation.cpp: PreChecks, then ReplacementChecks with the rules
 * of policy/rbf.cpp, then PolicyScriptChecks), and a failed replacement is
 * worded with the conflicting transactions' fees ("insufficient fee,
 * rejecting replacement …; new feerate … <= old feerate …", "less fees than
 * conflicting txs; … < …"). Anyone can write an unsigned spend of a public
 * outpoint, so such a refusal would tell them that a private transaction
 * spends it and what it pays. A refusal whose transaction conflicts with
 * mempool transactions the portal did not record (the direct conflicts and
 * their descendants, everything a replacement would evict) is answered with
 * one sentence. That holds for every reason, not only the conflict family:
 * with a high enough fee the node gets past the replacement rules to the
 * missing signature, and answering that verbatim would let the fee of the
 * private spend be found by bisection. A user replacing their own
 * submission (replace-by-fee) conflicts only with the portal's own records
 * and keeps the node's words. Staff get the node's words in either case
 * (ApiError.staffDetail: the audit trail, failed-transaction records).
 *
 * What remains: the refusal itself says that some transaction already spends
 * one of the named outpoints (or, for a version 3 transaction, that its
 * parent already has another child), as the node decides conflicts before
 * signatures; hiding that would need the node to check scripts first. And
 * a real submission is still judged by the node: someone who can spend the
 * conflicting outpoint (or a sibling output) could raise its fee step by
 * step until it is taken, which evicts the private transaction. A dry run
 * cannot be used that way (DRY_RUN_PRIVATE_CONFLICT_MESSAGE).
 */

export const PRIVATE_CONFLICT_MESSAGE = "The transaction conflicts with a transaction already in the pool's mempool, and cannot replace it.";

/**
 * A dry run's answer for a transaction that conflicts with one the portal
 * did not record, whatever the node would decide: a dry run changes
 * nothing and costs nothing, so answers that flip from refusal to success
 * at the private transaction's fee rate would let a bisection of dry runs
 * measure it. Only a real submission, which evicts what it replaces when
 * it succeeds, is judged by the node.
 */
export const DRY_RUN_PRIVATE_CONFLICT_MESSAGE =
  "The transaction conflicts with a transaction already in the pool's mempool: whether it can replace it is decided only when it is submitted.";

/**
 * Refusals of the conflict and replacement family, as Bitcoin Core and
 * Knots word them (validation.cpp, policy/rbf.cpp, Knots' -mempoolreplacement).
 * Used only when the conflicting transactions cannot be looked up: then
 * these are hidden, and any other reason is told.
 */
export const CONFLICT_REASONS =
  /txn-mempool-conflict|insufficient fee|replacement-adds-unconfirmed|too many potential replacements|too-many-replacements|bad-txns-spends-conflicting-tx|less fees than conflicting|package RBF failed|does not improve feerate diagram|bip125-replacement-disallowed/;

/** The node's chain-limit refusals (validation.cpp, policy/packages.cpp; Core 31's cluster limit), by their codes. */
const CHAIN_LIMIT_REASONS = /too-long-mempool-chain|package-mempool-limits|too-large-cluster/;

/** BIP431: version 3 transactions follow the TRUC rules, sibling eviction among them. */
const TRUC_VERSION = 3;

/** Outpoints per gettxspendingprevout call and transactions per descendants batch. */
const CHUNK = 1_000;

interface SpendingReply {
  txid: string;
  vout: number;
  spendingtxid?: string;
}

export interface PrivateConflictsDeps {
  rpc: RpcClient;
  portalTxids: PortalTxids;
}

export function createPrivateConflicts(deps: PrivateConflictsDeps) {
  const { rpc, portalTxids } = deps;

  /**
   * Whether a refusal of `txs` must not be told as the node worded it: some
   * mempool transaction it conflicts with, or that a replacement would
   * evict with them, is not the portal's. The calls: one lookup of the
   * spends of every input (gettxspendingprevout, Bitcoin Core 24+); more
   * only when something spends them.
   */
  async function conflictsPrivately(txs: readonly DecodedTx[], reason: string): Promise<boolean> {
    const own = new Set(txs.map((t) => t.txid));
    const outpoints = new Map<string, { txid: string; vout: number }>();
    for (const tx of txs) for (const input of tx.inputs) outpoints.set(`${input.txid}:${input.vout}`, { txid: input.txid, vout: input.vout });
    try {
      const all = [...outpoints.values()];
      const calls: RpcCall[] = [];
      for (let i = 0; i < all.length; i += CHUNK) calls.push({ method: 'gettxspendingprevout', params: [all.slice(i, i + CHUNK)] });
      const direct = new Set<string>();
      for (const reply of await rpc.batch<SpendingReply[]>(calls)) {
        if (!reply.ok) throw reply.error;
        for (const spend of reply.result) if (spend.spendingtxid && !own.has(spend.spendingtxid)) direct.add(spend.spendingtxid);
      }
      for (const sibling of await trucSiblings(txs, own)) direct.add(sibling);
      if (direct.size === 0) return false;
      // A replacement evicts the descendants of what it replaces too; the node's figures count them.
      const evicted = new Set(direct);
      const ids = [...direct];
      for (let i = 0; i < ids.length; i += CHUNK) {
        const replies = await rpc.batch<string[]>(ids.slice(i, i + CHUNK).map((id) => ({ method: 'getmempooldescendants', params: [id, false] })));
        for (const reply of replies) {
          // Gone since (mined, replaced): it evicts nothing more.
          if (reply.ok) for (const id of reply.result) if (!own.has(id)) evicted.add(id);
        }
      }
      const recorded = await portalTxids([...evicted]);
      return [...evicted].some((id) => !recorded.has(id));
    } catch (error) {
      if (!(error instanceof RpcError || error instanceof RpcTransportError)) throw error;
      // Cannot tell whose the conflicts are: hide the reasons that would describe them.
      return CONFLICT_REASONS.test(reason);
    }
  }

  /**
   * The other mempool children of the unconfirmed parents of `txs`' version 3
   * members. A version 3 (TRUC) parent may have one unconfirmed child, so the
   * node judges a second by sibling eviction (BIP431; validation.cpp
   * SingleTRUCChecks): it treats the first child as a conflict although the
   * two spend different outputs, and words its refusal with that child's
   * fee rate ("insufficient fee (including sibling eviction) … old feerate
   * …") or, where it cannot evict (a package), says the parent already has a
   * child. A stranger holding one output of a public parent would learn
   * whether, and at what rate, someone else's private child spends another.
   * One batch of getmempoolentry over the parents (a version 3 transaction
   * is at most 10,000 vB: its inputs are bounded), only for version 3.
   */
  async function trucSiblings(txs: readonly DecodedTx[], own: ReadonlySet<string>): Promise<string[]> {
    const parents = [...new Set(txs.filter((tx) => tx.version === TRUC_VERSION).flatMap((tx) => tx.inputs.map((input) => input.txid)))].filter((id) => !own.has(id));
    if (parents.length === 0) return [];
    const siblings: string[] = [];
    for (let i = 0; i < parents.length; i += CHUNK) {
      const replies = await rpc.batch<{ spentby?: string[] }>(parents.slice(i, i + CHUNK).map((id) => ({ method: 'getmempoolentry', params: [id] })));
      // A parent not in the mempool (confirmed, unknown) has no sibling to evict.
      for (const reply of replies) if (reply.ok) for (const id of reply.result.spentby ?? []) if (!own.has(id)) siblings.push(id);
    }
    return siblings;
  }

  /**
   * The public reason for the node's refusal of `txs` worded `reason`: the
   * node's, in plain words then its own (bitcoin/reject-reasons.ts), or the
   * generic sentence with the node's for staff.
   */
  async function publicReason(reason: string, txs: readonly DecodedTx[]): Promise<{ message: string; staffDetail?: string }> {
    // Chain limits are measured over every relative in the mempool, the pool's private ones too: the
    // sizes and counts the node gives would let an unsigned child measure them. Only the code is told.
    const limit = CHAIN_LIMIT_REASONS.exec(reason);
    if (limit) return { message: explainRejectReason(limit[0]), staffDetail: reason };
    return (await conflictsPrivately(txs, reason)) ? { message: PRIVATE_CONFLICT_MESSAGE, staffDetail: reason } : { message: explainRejectReason(reason) };
  }

  /**
   * The answer for a failed node call about `txs`: nodeFailure's (503 when
   * the node could not be asked), with a refusal's reason told as
   * publicReason decides.
   */
  async function refusal(error: unknown, txs: readonly DecodedTx[]): Promise<ApiError> {
    const failure = nodeFailure(error);
    if (failure.statusCode !== 422) return failure;
    const { message, staffDetail } = await publicReason(failure.message, txs);
    return new ApiError(422, message, undefined, staffDetail);
  }

  /**
   * Whether `txs` conflict with (or, version 3, are siblings of) a mempool
   * transaction the portal did not record, for a dry run's answer. When
   * the node cannot be asked, true: the answer that hides.
   */
  function conflictsWithPrivate(txs: readonly DecodedTx[]): Promise<boolean> {
    return conflictsPrivately(txs, 'txn-mempool-conflict');
  }

  return { publicReason, refusal, conflictsWithPrivate };
}

export type PrivateConflicts = ReturnType<typeof createPrivateConflicts>;
