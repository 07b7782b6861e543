-- The "first in projected block 0" event: a waiting transaction's webhooks are
-- told once when the projection first puts it in the next block. At most one
-- such event per subscription, however many instances notice it at once.

ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_check
  CHECK (event IN ('accepted', 'next_block', 'mined', 'replaced', 'evicted', 'conflicted', 'unconfirmed'));
CREATE UNIQUE INDEX webhook_deliveries_one_next_block ON webhook_deliveries (subscription_id) WHERE event = 'next_block';
