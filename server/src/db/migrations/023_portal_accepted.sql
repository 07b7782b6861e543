-- Which transactions an anonymous answer may name: those the node accepted
-- from the portal (a submission row past 'pending', a package member the
-- node took, or an attempt that timed out while the node may have taken it
-- from us). A 'pending' row is a request the node is still judging, and a
-- 'Failed' attempt one it refused: neither says the transaction is in the
-- pool's mempool because of the portal, so neither opens it to strangers
-- (modules/disclosure/public-disclosure.ts holds the rule for the code).
CREATE FUNCTION portal_accepted(candidate text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT candidate IS NOT NULL AND (
    EXISTS (SELECT 1 FROM tx_submissions s WHERE s.txid = candidate AND s.status <> 'pending')
    OR EXISTS (SELECT 1 FROM package_tx_outcomes p WHERE p.txid = candidate)
    OR EXISTS (SELECT 1 FROM failed_txs f WHERE f.txid = candidate AND f.status = 'Timeout'))
$$;

-- Webhook payloads are public (any caller may subscribe a URL): the
-- replacing transaction is named only when the portal accepted it, as the
-- status answers do. The column keeps the node's answer for staff.
CREATE OR REPLACE FUNCTION webhook_payload(event text, txid text, status text, block_hash text, block_height integer, block_time timestamptz, replaced_by text, reason text)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'event', event, 'txid', txid, 'status', status,
    'block_height', block_height, 'block_hash', block_hash,
    'block_time', CASE WHEN block_time IS NULL THEN NULL ELSE floor(extract(epoch FROM block_time))::bigint END,
    'replaced_by', CASE WHEN portal_accepted(replaced_by) THEN replaced_by END, 'reason', reason,
    'occurred_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
$$;
