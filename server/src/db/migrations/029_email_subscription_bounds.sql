-- What one client address may make the portal email (modules/notifications/
-- email-subscriptions.repository.ts addEmailSubscription): besides the 5
-- addresses a transaction takes, each client address group (an IPv4 address
-- or an IPv6 /64) may ask for EMAIL_MAX_SUBSCRIPTIONS_PER_ADDRESS_PER_DAY new
-- emails in any 24 hours, as callback URLs are bounded (migration 026). A
-- subscription row is deleted as soon as its email is sent, so it cannot
-- count the day's share: each new subscription leaves a row here, with the
-- requester's address group and when, and nothing about the email address.
-- Rows are deleted once they are a day old.
CREATE TABLE email_subscription_starts (
  id bigserial PRIMARY KEY,
  client_address text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_subscription_starts_address_created_at_idx ON email_subscription_starts (client_address, created_at);
CREATE INDEX email_subscription_starts_created_at_idx ON email_subscription_starts (created_at);
