import { rejectReasonEntry } from '../../bitcoin/reject-reasons.ts';
import { RpcCode, type RpcBatchItem, type RpcClient } from '../../bitcoin/rpc-client.ts';
import type { DecodedTx } from '../../bitcoin/tx-codec.ts';
import type { PortalTxids } from '../submission/portal-records.repository.ts';
import type { OracleAnswer, PolicyOracle } from './policy-oracle.ts';
import type { StandardVerdict } from './policy.schemas.ts';

/**
 * Would the public network relay these transactions? Each one is asked of
 * the standard-policy oracle with the unconfirmed ancestors it needs, parents
 * first: earlier members of the same list, and the portal's own transactions
 * still in the pool node's mempool (another one there stays private: the
 * oracle is not shown it, and the answer is then "unknown").
 *
 * Never a guess: without an oracle, with one that does not answer or is
 * behind the pool node's tip, or when it does not know an input, the
 * verdict is "unknown".
 */

export const UNKNOWN: StandardVerdict = { verdict: 'unknown' };

/** How a refusal for an unconfirmed ancestor's sake begins: the reason is then the ancestor's, not the transaction's own. */
export const ANCESTOR_REFUSED = 'Its unconfirmed ancestor ';
export const ancestorRefusal = (txid: string, why: string) => `${ANCESTOR_REFUSED}${txid} is refused: ${why}`;

/** Reasons that say the oracle lacks an input, not that the transaction is non-standard. */
const MISSING_INPUTS = /^(missing-inputs|bad-txns-inputs-missingorspent)/;
/**
 * Reasons that say the oracle already has the transaction, not that it
 * refuses it (Bitcoin Core validation.cpp MemPoolAccept::PreChecks): its
 * outputs are already coins (mined: there is no relaying left to judge, and
 * the submit page says in which block), or it is in the oracle's mempool,
 * which holds only what its default policy accepted.
 */
const ALREADY_MINED = /^(txn-already-known|Transaction already in block chain|Transaction outputs already in utxo set)/;
const ALREADY_IN_MEMPOOL = /^(txn-already-in-mempool|txn-same-nonwitness-data-in-mempool)/;
/**
 * Package errors that stand for Core's chain limits: the package alone (25
 * transactions, 101 kvB), or with the oracle's mempool ancestors (ancestor
 * and descendant counts and sizes); the others say nothing about the public network.
 */
const CHAIN_LIMIT_ERRORS = /^(package-too-many-transactions|package-too-large|package-mempool-limits)/;

/** Bitcoin Core's DEFAULT_ANCESTOR_LIMIT and MAX_PACKAGE_COUNT: a transaction and its unconfirmed ancestors. */
const MAX_CHAIN_LENGTH = 25;

/** Pool-node reads several oracles' judgements of one list share (judgeStandard). */
export interface SharedPoolReads {
  tip?: Promise<number> | undefined;
  ancestors?: Promise<MempoolAncestors>;
}

export interface StandardJudgeDeps {
  /** The standard-policy oracle; none configured: every verdict is "unknown". */
  policy?: PolicyOracle;
  /** The pool node: its tip and its mempool (the portal's own ancestors). */
  rpc: RpcClient;
  portalTxids: PortalTxids;
  /** Of the portal's transactions, those whose recorded Core 30 verdict is a refusal, with its reason code (standard-verdicts.repository.ts). */
  recordedRefusals?: ((txids: readonly string[]) => Promise<Map<string, string>>) | undefined;
}

/** A decoded transaction and its hex, as submitted. */
export interface HexTx {
  tx: DecodedTx;
  hex: string;
}

/**
 * `shared`: what several oracles judging the same list read once from the
 * pool node: its tip height, and the portal's mempool ancestors of the list
 * (the first oracle to need them asks; the others reuse the answer).
 */
export async function judgeStandard(deps: StandardJudgeDeps, items: HexTx[], shared: SharedPoolReads = {}): Promise<Map<DecodedTx, StandardVerdict>> {
  const txs = items.map((i) => i.tx);
  const verdicts = new Map<DecodedTx, StandardVerdict>(txs.map((t) => [t, UNKNOWN]));
  const oracle = deps.policy;
  if (!oracle || txs.length === 0) return verdicts;
  try {
    const [oracleHeight, poolTip] = await Promise.all([oracle.height(), shared.tip ?? deps.rpc.call<number>('getblockcount')]);
    if (oracleHeight < poolTip) return verdicts;
    shared.ancestors ??= portalMempoolAncestors(deps, txs);
    const mempool = await shared.ancestors;
    for (const tx of txs) {
      const pkg = packageFor(tx, items, mempool);
      // Core keeps at most 25 unconfirmed transactions in a chain (-limitancestorcount), the most testmempoolaccept takes at once:
      // a longer one is refused by public nodes for exactly that, whatever else it is.
      if (pkg.length > MAX_CHAIN_LENGTH) verdicts.set(tx, nonStandard('too-long-mempool-chain'));
      else verdicts.set(tx, verdictOf(tx, pkg, await oracle.testAccept(pkg.map((p) => p.hex))));
    }
  } catch {
    // The oracle (or the pool node) did not answer: nothing is known.
    return new Map(txs.map((t) => [t, UNKNOWN]));
  }
  return verdicts;
}

interface PackageMember {
  txid: string;
  hex: string;
}

function verdictOf(tx: DecodedTx, pkg: PackageMember[], answers: OracleAnswer[]): StandardVerdict {
  const own = answers.find((a) => a.txid === tx.txid);
  if (own?.allowed === true) return { verdict: 'standard' };
  const packageError = answers.find((a) => a['package-error'])?.['package-error'];
  if (packageError !== undefined && CHAIN_LIMIT_ERRORS.test(packageError)) return nonStandard(packageError);
  if (own?.allowed === false && own['reject-reason']) {
    if (ALREADY_IN_MEMPOOL.test(own['reject-reason'])) return { verdict: 'standard' };
    return MISSING_INPUTS.test(own['reject-reason']) || ALREADY_MINED.test(own['reject-reason']) ? UNKNOWN : nonStandard(own['reject-reason']);
  }
  // Not judged: an ancestor failed first. Refused for its ancestor's reason, unless that is an input the oracle lacks.
  const failed = answers.find((a) => a.allowed === false && a.txid !== tx.txid && a['reject-reason']);
  const ancestorWhy = failed?.['reject-reason'] ?? '';
  if (failed && !MISSING_INPUTS.test(ancestorWhy) && !ALREADY_MINED.test(ancestorWhy) && !ALREADY_IN_MEMPOOL.test(ancestorWhy) && pkg.some((p) => p.txid === failed.txid)) {
    const why = nonStandard(failed['reject-reason']!);
    return { ...why, explanation: ancestorRefusal(failed.txid, why.explanation ?? failed['reject-reason']!) };
  }
  return UNKNOWN;
}

/** Explained from the one table of reject reasons (bitcoin/reject-reasons.ts). */
function nonStandard(reason: string): StandardVerdict {
  const explanation = rejectReasonEntry(reason)?.plain;
  return { verdict: 'non-standard', reason, ...(explanation ? { explanation } : {}) };
}

/**
 * The transaction with its ancestors among `list` and in the pool's mempool
 * (the portal's own), parents first, as testmempoolaccept wants them (else
 * package-not-sorted): the list's in post-order, each after its own parents
 * whatever order the user gave them in.
 */
function packageFor(tx: DecodedTx, list: HexTx[], mempool: MempoolAncestors): PackageMember[] {
  const byTxid = new Map(list.map((t) => [t.tx.txid, t]));
  const inList = new Set<string>();
  const fromList: PackageMember[] = [];
  const inMempool = new Set<string>();
  const visit = (t: DecodedTx) => {
    for (const input of t.inputs) {
      const parent = byTxid.get(input.txid);
      if (parent && parent.tx !== tx && !inList.has(parent.tx.txid)) {
        inList.add(parent.tx.txid);
        visit(parent.tx);
        // After everything it spends: a parent's own in-list parents are already in.
        fromList.push({ txid: parent.tx.txid, hex: parent.hex });
      } else if (!parent) {
        for (const id of mempool.ancestorsOf.get(input.txid) ?? []) inMempool.add(id);
      }
    }
  };
  visit(tx);
  // Mempool ancestors by their own ancestor count (a parent always has fewer); none of them spends a list member.
  const fromMempool = [...inMempool].sort((a, b) => mempool.entries.get(a)!.depth - mempool.entries.get(b)!.depth).map((id) => ({ txid: id, hex: mempool.entries.get(id)!.hex }));
  return [...fromMempool, ...fromList, { txid: tx.txid, hex: list.find((t) => t.tx === tx)!.hex }];
}

/** Of `tx`'s ancestors in the pool's mempool, those the portal recorded (its own, as judgeStandard read them), not through `list`'s members. */
export function portalAncestorsOutside(tx: DecodedTx, list: readonly HexTx[], mempool: MempoolAncestors): string[] {
  const listed = new Set(list.map((t) => t.tx.txid));
  return [...new Set(tx.inputs.filter((i) => !listed.has(i.txid)).flatMap((i) => mempool.ancestorsOf.get(i.txid) ?? []))];
}

export interface MempoolAncestors {
  /** A parent's txid → it and its ancestors the portal recorded, all in the pool's mempool. */
  ancestorsOf: Map<string, string[]>;
  entries: Map<string, { hex: string; depth: number }>;
}

/** The portal's own unconfirmed transactions the list's transactions depend on, read from the pool node. */
async function portalMempoolAncestors(deps: StandardJudgeDeps, txs: DecodedTx[]): Promise<MempoolAncestors> {
  const listed = new Set(txs.map((t) => t.txid));
  const parents = [...new Set(txs.flatMap((t) => t.inputs.map((i) => i.txid)))].filter((id) => !listed.has(id));
  const result: MempoolAncestors = { ancestorsOf: new Map(), entries: new Map() };
  if (parents.length === 0) return result;
  const ours = await deps.portalTxids(parents);
  const recorded = parents.filter((p) => ours.has(p));
  if (recorded.length === 0) return result;
  const replies = await deps.rpc.batch<string[]>(recorded.map((p) => ({ method: 'getmempoolancestors', params: [p, false] })));
  const upstream = new Map<string, string[]>();
  recorded.forEach((p, i) => {
    const ancestors = found(replies[i]);
    if (ancestors) upstream.set(p, [p, ...ancestors]);
  });
  const all = [...new Set([...upstream.values()].flat())];
  const mine = await deps.portalTxids(all);
  const wanted = all.filter((id) => mine.has(id));
  const details = await deps.rpc.batch<unknown>(wanted.flatMap((id) => [
    { method: 'getrawtransaction', params: [id, 0] },
    { method: 'getmempoolentry', params: [id] },
  ]));
  wanted.forEach((id, i) => {
    const hex = found(details[i * 2]) as string | undefined;
    const entry = found(details[i * 2 + 1]) as { ancestorcount: number } | undefined;
    if (hex !== undefined && entry !== undefined) result.entries.set(id, { hex, depth: entry.ancestorcount });
  });
  for (const [parent, ids] of upstream) result.ancestorsOf.set(parent, ids.filter((id) => result.entries.has(id)));
  return result;
}

/** A batch answer, or undefined when the node no longer holds it (mined or evicted meanwhile). */
function found<T>(item: RpcBatchItem<T> | undefined): T | undefined {
  if (item === undefined) return undefined;
  if (item.ok) return item.result;
  if (item.error.code === RpcCode.INVALID_ADDRESS_OR_KEY) return undefined;
  throw item.error;
}
