import { ApiError } from '../../http/errors.ts';
import type { PortalTxids } from '../submission/portal-records.repository.ts';
import { CONFLICT_REASONS, PRIVATE_CONFLICT_MESSAGE } from '../submission/private-conflicts.ts';

/**
 * What an anonymous answer may say about other transactions. The pool's
 * mempool is private until mined: a public answer (status-check and the
 * Slipstream-compatible status, a package result, webhook payloads,
 * emails) names another transaction only when the node accepted it from
 * the portal (portal-records.repository.ts, SQL portal_accepted) or when it
 * is mined. Anything else it names is said without its id: "a transaction
 * not submitted here".
 *
 * A refusal of a submission (submit-tx, submit-package, their dry runs)
 * passes through publicRefusal: it names no transaction but the caller's
 * own and those the portal accepted.
 *
 * Staff keep the node's own words (the replaced_by column, the audit
 * trail): this module only shapes what leaves through the public door.
 */

/** Said instead of the id of a transaction the portal may not name. */
export const NOT_SUBMITTED_HERE = 'a transaction not submitted here';

/** A 64-hex-digit id (txid, wtxid or block hash) anywhere in a text. */
const ID_IN_TEXT = /\b[0-9a-f]{64}\b/gi;

/**
 * `replacer`, when a public answer may name it; null otherwise (not the
 * portal's, or nothing replaced it). One query.
 */
export async function publicReplacer(portalTxids: PortalTxids, replacer: string | null | undefined): Promise<string | null> {
  if (!replacer) return null;
  return (await portalTxids([replacer])).has(replacer) ? replacer : null;
}

/**
 * A text for a public answer (an outcome reason, a refusal the node worded),
 * with every id in it other than `own` (the transactions the caller gave)
 * replaced by NOT_SUBMITTED_HERE. For texts whose ids the portal does not
 * look up: a node's message can name a conflicting private transaction.
 */
export function withoutOtherIds(text: string, own: ReadonlySet<string>): string {
  return text.replace(ID_IN_TEXT, (id) => (own.has(id.toLowerCase()) ? id : NOT_SUBMITTED_HERE));
}

/**
 * Texts for a public answer with every id in them kept only when it is one
 * of `own` (lower case) or one the portal accepted; any other is said as
 * NOT_SUBMITTED_HERE. One query, and only when a text names an id outside
 * `own`: a refusal naming nothing else costs what it did.
 */
export async function withoutPrivateIds(portalTxids: PortalTxids, texts: readonly string[], own: ReadonlySet<string>): Promise<string[]> {
  const others = [...new Set(texts.flatMap((text) => (text.match(ID_IN_TEXT) ?? []).map((id) => id.toLowerCase())))].filter((id) => !own.has(id));
  if (others.length === 0) return [...texts];
  const named = new Set([...own, ...(await portalTxids(others))]);
  return texts.map((text) => withoutOtherIds(text, named));
}

/** The texts of a submitpackage result a refusal carries: the package's message and each member's reason. */
interface PackageResultTexts {
  package_msg?: string;
  'tx-results'?: Record<string, { error?: string | undefined } & Record<string, unknown>>;
}

/** Refusals already passed through publicRefusal: given back as they are (a pipeline that calls another passes each once). */
const passed = new WeakSet<ApiError>();

/**
 * A refusal of the caller's own transactions as a public answer may give
 * it. `own`: the ids the caller's request itself carries (its
 * transactions' txids and wtxids and the txids of the outputs they spend),
 * which telling back tells nothing. Its message, and in a package's result
 * the package's message and each member's reason, keep those and the ids
 * of transactions the portal accepted; any other id can only have come from
 * the node's words (a conflicting transaction, another member's relative)
 * and is said without its id. The ids the result itself is keyed by are the
 * package's own wtxids; its `replaced-transactions` passed
 * publicPackageResult. Staff keep the node's words (staffDetail, the audit
 * trail).
 */
export async function publicRefusal(portalTxids: PortalTxids, refusal: ApiError, own: ReadonlySet<string>): Promise<ApiError> {
  if (passed.has(refusal)) return refusal;
  const result = refusal.extra?.['result'] as PackageResultTexts | undefined;
  const members = Object.entries(result?.['tx-results'] ?? {});
  const texts = [refusal.message, result?.package_msg ?? '', ...members.map(([, r]) => r.error ?? '')];
  const told = await withoutPrivateIds(portalTxids, texts, own);
  if (told.every((text, i) => text === texts[i])) {
    passed.add(refusal);
    return refusal;
  }
  const [message, packageMsg, ...errors] = told as [string, string, ...string[]];
  const extra = result
    ? {
        ...refusal.extra,
        result: {
          ...result,
          ...(result.package_msg === undefined ? {} : { package_msg: packageMsg }),
          ...(result['tx-results'] ? { 'tx-results': Object.fromEntries(members.map(([wtxid, r], i) => [wtxid, r.error === undefined ? r : { ...r, error: errors[i] }])) } : {}),
        },
      }
    : refusal.extra;
  // Staff read the node's words where the caller reads fewer.
  const staffDetail = refusal.staffDetail ?? (message === refusal.message ? undefined : refusal.message);
  const answer = new ApiError(refusal.statusCode, message, extra, staffDetail);
  passed.add(answer);
  return answer;
}

/**
 * A node's refusal of one of the portal's own transactions, as a public
 * answer (a webhook's reason) may give it, when the portal cannot tell
 * whose the conflicting transactions are: a refusal of the conflict family
 * is worded with the conflicting transactions' fee rates, so it becomes one
 * sentence; any other keeps its words, with other ids taken out.
 */
export function publicNodeReason(reason: string, own: ReadonlySet<string>): string {
  return CONFLICT_REASONS.test(reason) ? PRIVATE_CONFLICT_MESSAGE : withoutOtherIds(reason, own);
}

/** The parts of a submitpackage result that can name transactions outside the package. */
export interface PackageResultNames {
  'replaced-transactions'?: string[] | undefined;
  'tx-results'?: Record<string, { 'other-wtxid'?: string | undefined } & Record<string, unknown>> | undefined;
}

/**
 * A submitpackage result as a stranger may read it: `replaced-transactions`
 * lists only the replaced transactions the portal had accepted (a package
 * that replaces a private one must not name it), and a member's
 * `other-wtxid` (the witness of the same transaction the node already held,
 * got elsewhere) is dropped.
 */
export async function publicPackageResult<T extends PackageResultNames>(portalTxids: PortalTxids, result: T): Promise<T> {
  const replaced = result['replaced-transactions'];
  const named = replaced && replaced.length > 0 ? await portalTxids(replaced) : new Set<string>();
  const txResults = result['tx-results'];
  return {
    ...result,
    ...(replaced ? { 'replaced-transactions': replaced.filter((id) => named.has(id)) } : {}),
    ...(txResults
      ? { 'tx-results': Object.fromEntries(Object.entries(txResults).map(([wtxid, r]) => [wtxid, withoutOtherWtxid(r)])) }
      : {}),
  };
}

function withoutOtherWtxid<R extends { 'other-wtxid'?: string | undefined }>(r: R): R {
  if (r['other-wtxid'] === undefined) return r;
  const { 'other-wtxid': _other, ...rest } = r;
  return rest as R;
}
