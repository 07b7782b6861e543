import { RpcError, RpcTransportError, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { Queryable } from '../../db/database.ts';
import { ApiError, nodeFailure } from '../../http/errors.ts';
import { NODE_CALLS, type NodeCallMeter } from '../../http/node-call-budget.ts';
import type { Logger } from '../../lib/logger.ts';
import type { FamilyTx, MempoolReader, MempoolTxView, MempoolView } from '@slipstream/mempool-engine';
import { createBumpAdvisor } from './bump-advice.ts';
import { createClusterMempoolCheck } from '../../bitcoin/cluster/cluster-limits.ts';
import { createChainLookups } from './chain-lookups.ts';
import { findRemoval, removal } from './removal-finder.ts';
import { createSizeMemo } from './size-memo.ts';
import { cpfpNote, goneAnswer, inMempoolAnswer, minedAnswer, poolOddsOf, recordedConfirmedAnswer, unix, type MempoolEntry } from './status-answers.ts';
import { cpfpLinksOf } from '../submission/cpfp-links.repository.ts';
import { recordedTxids } from '../submission/portal-records.repository.ts';
import { portalFamily, relativesOf, type PortalFamily } from './portal-family.ts';
import { portalRecordOf } from './status.repository.ts';
import type { PortalTxidIndex } from '../submission/portal-txid-index.ts';
import type { StatusResponse } from './status.schemas.ts';

/**
 * GET /rest-api/status-check: where a transaction is, from the mempool
 * engine first (its place in the projected blocks, its functional rate, the
 * rate to beat, the pool's odds), then the chain (mined: block hash, height
 * and time), then the portal's records and the engine's memory (gone: why,
 * and what replaced it). Unknown to all of them: 404.
 *
 * The pool's mempool is private until mined (docs/behaviour.md#private-until-mined): only
 * transactions the node accepted from the portal (a settled submission, a
 * package member, an attempt that timed out) are looked up in the mempool.
 * Any other txid is answered from the blocks the portal follows alone,
 * mined or 404, and by the same calls whether or not the node holds it, so
 * neither the answer nor the work behind it says that it does. Which
 * transactions are the portal's is decided in one place for every public
 * answer (submission/portal-records.repository.ts);
 * the rule lives here, not in a route, for every API that answers a status.
 */

export const TX_NOT_FOUND_MESSAGE = 'Transaction not found: it was not submitted here and is in none of the recent blocks the portal follows (the last 1,008).';

/** What portalRecordOf answers for a txid the portal never accepted. */
const NOT_RECORDED = { known: false, submission: undefined, firstSeen: null } as const;

/** No child-pays-for-parent link (cpfp-links.repository.ts). */
const NO_LINKS = { paysFor: [], paidBy: [] };

/** How long a request waits for the engine to project a transaction the node has just taken. */
const CATCH_UP_MS = 2_000;

/**
 * Transactions whose size the service remembers. A status page polls the
 * same transaction while it waits; its serialized size, read from the
 * portal's records or the node, and when the portal first took it are the
 * things the engine does not hold.
 */
const SIZE_MEMO_ENTRIES = 10_000;

export interface StatusDeps {
  db: Queryable;
  rpc: RpcClient;
  mempool: MempoolReader;
  log: Logger;
  /** Holds a request to fewer node calls on a path known to cost less (http/node-call-budget.ts). */
  nodeCalls?: Pick<NodeCallMeter, 'limit'>;
  /** Whether a txid may be the portal's, from memory: a certain "no" skips the database (portal-txid-index.ts). */
  portalTxids: Pick<PortalTxidIndex, 'mayHold'>;
}

export function createStatusService(deps: StatusDeps) {
  const { db, rpc, mempool } = deps;
  const sizes = createSizeMemo<{ size: number; firstSeen: number | null }>(SIZE_MEMO_ENTRIES);
  const clusterMempool = createClusterMempoolCheck(rpc);
  const advisor = createBumpAdvisor(rpc, clusterMempool);
  const node = createChainLookups(rpc);

  /** The bump advice for a transaction the engine projected; null when competitive. */
  const bumpOf = async (view: MempoolView, tx: MempoolTxView | undefined, own: PortalFamily) => ({ bump: tx?.projected ? await advisor.advise(tx, view, own) : null });

  /**
   * The family as a public answer may describe it (portal-family.ts): which
   * of its in-mempool relatives are the portal's, one query, asked only when
   * the engine (or the node) says it has any, so that a status page polling a
   * transaction with none stays an answer from the engine alone.
   */
  async function portalFamilyOf(family: FamilyTx[]): Promise<PortalFamily> {
    const relatives = relativesOf(family);
    // Alone, its rate is its own whatever the node's kind: the node is asked only for a transaction with relatives.
    if (relatives.length === 0) return portalFamily(family, new Set());
    const [recorded, chunked] = await Promise.all([recordedTxids(db, relatives), clusterMempool()]);
    return portalFamily(family, recorded, chunked);
  }

  async function check(rawTxid: string): Promise<StatusResponse> {
    const txid = rawTxid.trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(txid)) throw new ApiError(400, 'tx_id must be a transaction id of 64 hexadecimal characters.');
    try {
      return await locate(txid);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof RpcTransportError || error instanceof RpcError) throw nodeFailure(error);
      throw error;
    }
  }

  async function locate(txid: string): Promise<StatusResponse> {
    const view = await mempool.view();
    // Only transactions the portal recorded are remembered here, so a hit says nothing new.
    const remembered = sizes.get(txid);
    const tx = remembered === undefined ? undefined : view.transaction(txid);
    const held = tx?.projected ? view.family(txid) : undefined;
    if (tx?.projected && held && remembered !== undefined) {
      // Waiting in the mempool, and its size already known: the engine answers alone, with no node call, and no
      // database call unless it has unconfirmed relatives (which of them are the portal's).
      // A child that paid for it, or the parent it paid for, is one of the portal's relatives in the mempool: with none, no link to read.
      const own = await portalFamilyOf(held);
      const links = own.ancestors.length + own.descendants.length > 0 ? await cpfpLinksOf(db, txid) : NO_LINKS;
      return { ...inMempoolAnswer(txid, view, tx, undefined, remembered.size, remembered.firstSeen, own), ...poolOddsOf(await mempool.odds()), ...(await bumpOf(view, tx, own)), child_pays_for_parent: cpfpNote(links) };
    }

    // A txid the portal never accepted (a stranger's random one, or a private transaction's) costs no query.
    const record = deps.portalTxids.mayHold(txid) ? await portalRecordOf(db, txid) : NOT_RECORDED;
    // A txid the portal did not record has no child-pays-for-parent link: the links are between its own records.
    if (!record.known) return { ...(await fromChainOnly(txid, view)), child_pays_for_parent: null };
    // Child pays for parent: said on both transactions' answers.
    const [answer, links] = await Promise.all([locateRecorded(txid, view, record), cpfpLinksOf(db, txid)]);
    return { ...answer, child_pays_for_parent: cpfpNote(links) };
  }

  /** Where a transaction the portal recorded is: in the mempool, mined, or gone (and why). */
  async function locateRecorded(txid: string, seen: MempoolView, record: Awaited<ReturnType<typeof portalRecordOf>>): Promise<StatusResponse> {
    const { submission: recorded, firstSeen: portalTime } = record;
    let view = seen;
    let tx = view.transaction(txid);
    let entry: MempoolEntry | undefined;
    if (!tx?.projected) {
      // Not projected yet, or not even mirrored: the node may have taken it a moment ago.
      entry = tx ? undefined : await node.mempoolEntry(txid);
      if (tx || entry) {
        view = await mempool.viewWith(txid, CATCH_UP_MS);
        tx = view.transaction(txid) ?? tx;
      }
    }
    const poolOdds = poolOddsOf(await mempool.odds());
    const firstSeen = portalTime ? unix(portalTime) : null;

    // The engine's mirror holds it (or the node alone, for the moment the engine trails it).
    const family = (tx && view.family(txid)) ?? (entry ? await node.mempoolFamily(txid, entry) : undefined);
    if (family) {
      const size = recorded?.size ?? (await node.rawSize(txid));
      if (size !== null) sizes.remember(txid, { size, firstSeen });
      const own = await portalFamilyOf(family);
      return { ...inMempoolAnswer(txid, view, tx, entry, size, firstSeen, own), ...poolOdds, ...(await bumpOf(view, tx, own)) };
    }

    // Not in the mempool: mined, or gone.
    const gone = mempool.removal(txid);
    const mined = await node.findMined(txid, gone);
    if (mined) return { ...minedAnswer(txid, mined, gone, recorded, view, firstSeen), ...poolOdds };
    if (!recorded && !gone) throw new ApiError(404, TX_NOT_FOUND_MESSAGE);
    if (recorded?.status === 'confirmed') return { ...recordedConfirmedAnswer(txid, recorded, view), ...poolOdds };
    const why = recorded ? await findRemoval(deps, txid, recorded) : removal('unknown');
    return { ...goneAnswer(txid, recorded, gone, why, view, firstSeen), ...poolOdds };
  }

  /**
   * A transaction the portal did not record: mined in one of the blocks the
   * portal follows (the last 1,008, by the block tracker's txid index), or
   * not found. Anyone may ask about any txid, so the answer costs the node
   * no work that grows with its chain state or mempool (docs/architecture.md, code
   * conventions 13): a txid no followed block holds is a 404 with no node
   * call; one that a followed block holds costs one call that reads that
   * block only (NODE_CALLS). The mempool is never consulted, not even by the
   * node on our behalf, so a transaction the node holds costs the same
   * calls as an unknown one. The index follows reorganisations as the
   * tracker does: a transaction moved to another block is found in its new
   * one, and a block the chain left answers nothing (minedInFollowed).
   */
  async function fromChainOnly(txid: string, view: MempoolView): Promise<StatusResponse> {
    deps.nodeCalls?.limit(NODE_CALLS.unrecordedMined);
    const block = await mempool.minedBlockOf(txid);
    const mined = block ? await node.minedInFollowed(txid, block) : undefined;
    if (!mined) throw new ApiError(404, TX_NOT_FOUND_MESSAGE);
    return { ...minedAnswer(txid, mined, mempool.removal(txid), undefined, view, null), ...poolOddsOf(await mempool.odds()) };
  }

  return { check };
}

export type StatusService = ReturnType<typeof createStatusService>;
