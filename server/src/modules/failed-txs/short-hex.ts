/**
 * List pages carry a shortened transaction hex, never the whole of it: a
 * transaction can be 8 MB of hex, and a page of a hundred of them made one
 * staff request a 95 MB answer. The shortening happens in SQL, so the
 * database never sends the rest to the server either; the whole hex is one
 * request per row away (GET /rest-api/txs/{id}/hex, GET
 * /rest-api/tx-puller/{id}/hex) and in the CSV downloads. The SQL that
 * shortens is failed-txs.repository.ts's (shortHexSql and friends).
 */

/** Characters kept at each end of a shortened hex. */
export const SHORT_HEX_EDGE = 24;
/** Hex up to this many characters is shown whole (a shortened one is 2 * SHORT_HEX_EDGE + 1 long). */
export const SHORT_HEX_MAX = 64;

/** What the OpenAPI description says of a shortened field. */
export const SHORT_HEX_DESCRIPTION =
  `shortened when longer than ${SHORT_HEX_MAX} characters: its first and last ${SHORT_HEX_EDGE} characters joined by "…"; ` +
  'the whole length is in the matching *_length field';

/** The same shortening in JavaScript, for tests and callers holding the whole hex. */
export function shortHex(hex: string): string {
  return hex.length <= SHORT_HEX_MAX ? hex : `${hex.slice(0, SHORT_HEX_EDGE)}…${hex.slice(-SHORT_HEX_EDGE)}`;
}
