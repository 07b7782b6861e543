-- What one request may make the portal send to a URL a stranger gave
-- (modules/notifications/webhooks.repository.ts subscribe): a callback_url
-- is one subscription per transaction and URL (the same URL again is the
-- subscription it has), a transaction takes at most 5 of them, and each
-- client address group (an IPv4 address or an IPv6 /64) starts at most
-- WEBHOOK_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY in any 24 hours. Each row now
-- says which address group it was made for, so that day's share is counted
-- from an index; NULL for a client's webhook (set by staff, counted by no
-- bound) and for rows from before this migration.
ALTER TABLE webhook_subscriptions ADD COLUMN client_address text;
CREATE INDEX webhook_subscriptions_client_address_created_at_idx ON webhook_subscriptions (client_address, created_at)
  WHERE client_address IS NOT NULL;
