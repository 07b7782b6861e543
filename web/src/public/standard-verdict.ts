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
