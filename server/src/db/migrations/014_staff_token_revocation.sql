-- Local staff tokens end with their account, not an hour later.
--
-- Every token carries its account's token version; the portal refuses a token
-- whose version is not the account's current one. Versions come from one
-- sequence, so a removed account re-created under the same name never
-- matches a token of the old one. Any change of password or role takes a new
-- version here, in the database, whichever path makes it (the staff command,
-- SQL by hand): the tokens signed in before it stop working.
CREATE SEQUENCE staff_token_versions;

ALTER TABLE staff_accounts ADD COLUMN token_version bigint NOT NULL DEFAULT nextval('staff_token_versions');

CREATE FUNCTION staff_accounts_revoke_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.password_hash IS DISTINCT FROM OLD.password_hash
     OR NEW.is_admin IS DISTINCT FROM OLD.is_admin
     OR NEW.username IS DISTINCT FROM OLD.username THEN
    NEW.token_version := nextval('staff_token_versions');
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER staff_accounts_revoke_tokens BEFORE UPDATE ON staff_accounts
  FOR EACH ROW EXECUTE FUNCTION staff_accounts_revoke_tokens();

-- Signing keys: the private half is kept sealed (AES-256-GCM) with a secret
-- that is not in the database (AUTH_KEY_SECRET, or DATA_DIR/auth-key.secret),
-- and a key can be retired: tokens it signed are refused from then on.
--
-- Keys made before this migration were stored in the clear: they are retired
-- and their private halves dropped (tokens they signed lack a token version
-- and are refused anyway); the portal makes a sealed key at its next start.
-- DROP COLUMN only hides the values: the UPDATE after it rewrites every row
-- without them, and vacuum reclaims the old row versions.
ALTER TABLE auth_signing_keys DROP COLUMN private_jwk;
ALTER TABLE auth_signing_keys ADD COLUMN sealed_private_jwk text, ADD COLUMN retired_at timestamptz;
UPDATE auth_signing_keys SET retired_at = now();

-- A key that signs has its sealed private half; a retired one keeps none.
ALTER TABLE auth_signing_keys ADD CONSTRAINT auth_signing_keys_sealed_while_active
  CHECK ((retired_at IS NULL) = (sealed_private_jwk IS NOT NULL));

-- At most one key signs at a time: instances racing to make the first one
-- converge on the winner's, and a rotation retires the old one first.
CREATE UNIQUE INDEX auth_signing_keys_one_active ON auth_signing_keys ((retired_at IS NULL)) WHERE retired_at IS NULL;
