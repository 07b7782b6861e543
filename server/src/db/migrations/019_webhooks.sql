-- Webhook notifications: a submitter's callback_url, or the webhook staff set
-- for a client, asks for every event of the transactions submitted (accepted, mined, replaced, evicted,
-- conflicted, and unconfirmed again by a reorg).
--
-- The events are written by the database itself (an outbox): a trigger on
-- the tracked rows adds one delivery per subscription in the same
-- transaction as the status change, so no change is ever missed however the
-- row was updated, and a crash between the change and the delivery loses
-- nothing. Deliveries are sent in order per subscription by 'webhook' jobs.

-- A client's own webhook, set by staff on the Clients screen: events of
-- every submission made with any of the client's codes.
CREATE TABLE client_webhooks (
  client_id integer PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
  url text NOT NULL,
  secret_salt text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_subscriptions (
  id bigserial PRIMARY KEY,
  txid text NOT NULL,
  -- Set when the subscription is the client's webhook (its delivery log on the Clients screen).
  client_id integer REFERENCES clients (id) ON DELETE CASCADE,
  url text NOT NULL,
  -- The signing secret is derived from this salt and the portal's key
  -- (DATA_DIR/auth-key.secret or AUTH_KEY_SECRET); a copy of the database
  -- alone does not let anyone forge a signature.
  secret_salt text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhook_subscriptions_txid_hex CHECK (txid ~ '^[0-9a-f]{64}$')
);
CREATE INDEX webhook_subscriptions_txid_idx ON webhook_subscriptions (txid);
CREATE INDEX webhook_subscriptions_client_idx ON webhook_subscriptions (client_id, id) WHERE client_id IS NOT NULL;

CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  subscription_id bigint NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
  event text NOT NULL,
  -- What happened, fixed when it happened: a retry sends the same body.
  payload jsonb NOT NULL,
  state text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  first_attempt_at timestamptz,
  last_attempt_at timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  CONSTRAINT webhook_deliveries_event_check CHECK (event IN ('accepted', 'mined', 'replaced', 'evicted', 'conflicted', 'unconfirmed')),
  CONSTRAINT webhook_deliveries_state_check CHECK (state IN ('pending', 'delivered', 'failed'))
);
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (subscription_id, id) WHERE state = 'pending';

ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('track', 'scan-blocks', 'retry', 'webhook'));

-- The event a status change means, or NULL for none ('pending' to 'accepted'
-- is announced when the subscription is made, with the submit answer).
CREATE FUNCTION webhook_event_of(old_status text, new_status text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN new_status = 'confirmed' THEN 'mined'
    WHEN new_status IN ('replaced', 'evicted', 'conflicted') THEN new_status
    WHEN new_status = 'accepted' AND old_status = 'confirmed' THEN 'unconfirmed'
    ELSE NULL
  END
$$;

CREATE FUNCTION webhook_payload(event text, txid text, status text, block_hash text, block_height integer, block_time timestamptz, replaced_by text, reason text)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'event', event, 'txid', txid, 'status', status,
    'block_height', block_height, 'block_hash', block_hash,
    'block_time', CASE WHEN block_time IS NULL THEN NULL ELSE floor(extract(epoch FROM block_time))::bigint END,
    'replaced_by', replaced_by, 'reason', reason,
    'occurred_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
$$;

CREATE FUNCTION webhook_outbox() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ev text := webhook_event_of(OLD.status, NEW.status);
BEGIN
  IF ev IS NOT NULL THEN
    INSERT INTO webhook_deliveries (subscription_id, event, payload)
    SELECT s.id, ev, webhook_payload(ev, NEW.txid, NEW.status, NEW.block_hash, NEW.block_height, NEW.block_time, NEW.replaced_by, NEW.outcome_reason)
    FROM webhook_subscriptions s WHERE s.txid = NEW.txid
    ORDER BY s.id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER tx_submissions_webhook_outbox
  AFTER UPDATE OF status ON tx_submissions
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION webhook_outbox();

CREATE TRIGGER package_tx_outcomes_webhook_outbox
  AFTER UPDATE OF status ON package_tx_outcomes
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION webhook_outbox();
