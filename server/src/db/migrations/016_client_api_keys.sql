-- API keys staff issue to a client (from the Clients screen) for the public
-- API's authorised endpoints (POST /api/mempool/tests). Only a SHA-256 of the
-- key is kept: the key is shown once, when it is issued, and a database copy
-- never lets anyone call the API. A key is 32 random bytes, so a plain hash
-- (no salt, no stretching) is as strong as the key itself and can be looked
-- up by equality.

CREATE TABLE client_api_keys (
  id serial PRIMARY KEY,
  -- Deleting a client takes its keys with it.
  client_id integer NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  key_hash text NOT NULL,
  -- The key's first characters, so staff can tell keys apart without the key.
  key_prefix text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  revoked_by text,
  last_used_at timestamptz,
  CONSTRAINT client_api_keys_key_hash_key UNIQUE (key_hash)
);

CREATE INDEX client_api_keys_client_id_idx ON client_api_keys (client_id, created_at DESC, id DESC);
