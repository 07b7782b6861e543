-- Local sign-in is throttled per (username, client address) instead of
-- locking the account: failures from one address slow that address down on
-- that username, and the owner signing in from anywhere else is not held up
-- (src/auth/login-throttle.ts). A lock that anyone could set by failing five
-- times kept the break-glass administrator out for as long as someone kept
-- failing. The state is here, not in memory, so that every instance sharing
-- the database applies the same throttle.

-- One row per (username as typed, client address or IPv6 /64) with failures
-- since its last success. The username need not be an account's: an unknown
-- name is throttled exactly like a known one, so the answers say nothing
-- about which accounts exist. A row counts an attempt as it is checked and
-- is removed when that attempt succeeds; rows quiet for an hour are removed.
CREATE TABLE login_throttle (
  username text NOT NULL,
  client_address text NOT NULL,
  failures integer NOT NULL,
  last_failure_at timestamptz NOT NULL,
  PRIMARY KEY (username, client_address)
);
CREATE INDEX login_throttle_last_failure_at ON login_throttle (last_failure_at);

-- Failed attempts per username in a five-minute window, across addresses: a
-- burst logs one warning per window (warned), whichever instance sees it.
CREATE TABLE login_failure_windows (
  username text PRIMARY KEY,
  started_at timestamptz NOT NULL,
  failures integer NOT NULL,
  warned boolean NOT NULL DEFAULT false
);
CREATE INDEX login_failure_windows_started_at ON login_failure_windows (started_at);

-- The lock's columns stay, unused, so that an instance still running the
-- previous version during a rolling upgrade keeps working (it selects them);
-- a later migration may drop them. Accounts locked at the upgrade are freed.
UPDATE staff_accounts SET failed_logins = 0, locked_until = NULL WHERE failed_logins <> 0 OR locked_until IS NOT NULL;
COMMENT ON COLUMN staff_accounts.failed_logins IS 'Unused since migration 013 (login_throttle)';
COMMENT ON COLUMN staff_accounts.locked_until IS 'Unused since migration 013 (login_throttle)';
