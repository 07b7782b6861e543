-- Quotes that hold and receipts that prove (modules/receipts/).
--
-- 1. Two settings. Quotes are signed, not stored (no row per quote), so the
--    validity is read when a quote is issued and written into it: a change
--    applies to quotes issued after it. The pool's name is what its receipts
--    say signed them.
INSERT INTO settings (item, value, description, value_type, min_value, max_value) VALUES
  ('quote_validity_minutes', '10',
   'How long a fee quote (GET /api/rates, /rest-api/getinfo, the submit page) holds: a submission naming it is judged at the quoted minimum until then, even if the minimum has risen',
   'number', 1, 1440),
  ('pool_name', 'Slipstream',
   'The pool''s name, as its signed receipts of accepted submissions give it',
   'text', NULL, NULL)
ON CONFLICT (item) DO NOTHING;

-- 2. The keys that sign receipts (ES256), apart from the staff sign-in keys
--    (auth_signing_keys): the two are rotated for different reasons and a
--    retired key means opposite things. A staff token signed by a retired
--    key is refused; a receipt signed by a retired key still proves what it
--    says, so a retired receipt key stays published (GET /.well-known/jwks.json)
--    with its private half erased. Only a withdrawn key (its private half
--    leaked, `npm run staff -- withdraw-receipt-key`) leaves the published set:
--    receipts it signed no longer verify, since anyone may have made them.
--    The private half is sealed like the staff keys' (auth/auth-key-secret.ts).
CREATE TABLE receipt_signing_keys (
  kid text PRIMARY KEY,
  sealed_private_jwk text,
  public_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz,
  withdrawn_at timestamptz,
  -- The key that signs has its sealed private half; a retired one keeps none.
  CONSTRAINT receipt_signing_keys_sealed_while_active
    CHECK ((retired_at IS NULL) = (sealed_private_jwk IS NOT NULL)),
  -- A withdrawn key is retired too: it signs nothing more.
  CONSTRAINT receipt_signing_keys_withdrawn_is_retired
    CHECK (withdrawn_at IS NULL OR retired_at IS NOT NULL)
);

-- One signing key at a time: instances racing to make the first keep one.
CREATE UNIQUE INDEX receipt_signing_keys_one_active ON receipt_signing_keys ((retired_at IS NULL)) WHERE retired_at IS NULL;
