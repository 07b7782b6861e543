-- Every instance keeps in memory which txids the portal accepted
-- (modules/submission/portal-txid-index.ts), so that a status check for a
-- txid it never recorded is answered with no query at all. A transaction
-- becomes the portal's (portal_accepted, migration 023) in one of three
-- writes; each notifies every instance with its txid, at commit. An
-- instance that lost its LISTEN connection reloads the whole set.
CREATE FUNCTION notify_portal_txid() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('portal_txids', NEW.txid);
  RETURN NULL;
END
$$;

-- A submission row is the portal's once past 'pending' (the node took it); later status changes (mined, replaced) change nothing here.
CREATE TRIGGER tx_submissions_portal_txid
  AFTER INSERT ON tx_submissions
  FOR EACH ROW WHEN (NEW.status <> 'pending')
  EXECUTE FUNCTION notify_portal_txid();

CREATE TRIGGER tx_submissions_portal_txid_settled
  AFTER UPDATE OF status ON tx_submissions
  FOR EACH ROW WHEN (OLD.status = 'pending' AND NEW.status <> 'pending')
  EXECUTE FUNCTION notify_portal_txid();

CREATE TRIGGER package_tx_outcomes_portal_txid
  AFTER INSERT ON package_tx_outcomes
  FOR EACH ROW EXECUTE FUNCTION notify_portal_txid();

CREATE TRIGGER failed_txs_portal_txid
  AFTER INSERT ON failed_txs
  FOR EACH ROW WHEN (NEW.status = 'Timeout')
  EXECUTE FUNCTION notify_portal_txid();

CREATE TRIGGER failed_txs_portal_txid_timed_out
  AFTER UPDATE OF status ON failed_txs
  FOR EACH ROW WHEN (OLD.status <> 'Timeout' AND NEW.status = 'Timeout')
  EXECUTE FUNCTION notify_portal_txid();
