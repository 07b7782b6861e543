/**
 * parse-tx's verdict on whether the public network would relay a
 * transaction (server: modules/policy/policy.schemas.ts). Spelled out rather
 * than taken from the API types, so that this file stands alone (the unit
 * tests run it without the rest of the app).
 */
export interface StandardVerdict {
  verdict: 'standard' | 'non-standard' | 'unknown';
  reason?: string;
  explanation?: string;
}

/**
 * The verdict in the page's words. A refusal gives the plain explanation,
 * then Bitcoin Core's own code (which wallets and search engines know).
 */
export function standardText(standard: StandardVerdict): string {
  if (standard.verdict === 'standard') return 'standard: the public network would relay this';
  if (standard.verdict === 'unknown') return 'unknown: no node with the public network\'s policy could judge it right now';
  const why = standard.explanation ? lowerFirst(standard.explanation.replace(/\.\s*$/, '')) : 'of its policy';
  return `non-standard: public nodes refuse it because ${why}${standard.reason ? ` (${standard.reason})` : ''}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** One relay policy's verdict (server: modules/policy/policy.schemas.ts PolicyVerdict). */
export interface PolicyVerdict {
  policy: 'core' | 'core-29' | 'knots';
  relays: boolean | null;
  reason?: string;
  explanation?: string;
  network_share?: number;
}

/** The nodes each policy stands for, as a reader knows them. */
export const POLICY_NAMES: Record<PolicyVerdict['policy'], string> = {
  core: 'Bitcoin Core 30 and later',
  'core-29': 'Bitcoin Core 29, and Knots with -corepolicy',
  knots: 'Bitcoin Knots, its defaults',
};

/** A policy's line: who, their share of the network when the operator gave one, and what they would do. */
export function policyLine(verdict: PolicyVerdict): string {
  const who = `${POLICY_NAMES[verdict.policy]}${verdict.network_share === undefined ? '' : ` (${verdict.network_share}% of nodes)`}`;
  if (verdict.relays === true) return `${who}: relays it`;
  if (verdict.relays === null) return `${who}: not known${verdict.explanation ? ` (${lowerFirst(verdict.explanation.replace(/\.\s*$/, ''))})` : ''}`;
  const why = verdict.explanation ? lowerFirst(verdict.explanation.replace(/\.\s*$/, '')) : 'of its policy';
  return `${who}: refuses it because ${why}${verdict.reason ? ` (${verdict.reason})` : ''}`;
}
