-- Local staff accounts, for pools without single sign-on and for break-glass
-- access. Passwords are stored as scrypt hashes with their own salt and
-- parameters. Repeated failures lock an account for a while.
CREATE TABLE staff_accounts (
  id serial PRIMARY KEY,
  username text NOT NULL,
  password_hash text NOT NULL,
  is_admin boolean NOT NULL DEFAULT false,
  failed_logins integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT staff_accounts_username_key UNIQUE (username),
  CONSTRAINT staff_accounts_username_format CHECK (username ~ '^[A-Za-z0-9._@-]{1,64}$')
);

-- The keys the portal signs local sign-in tokens with, shared by every
-- instance on this database so that any of them verifies any token.
CREATE TABLE auth_signing_keys (
  kid text PRIMARY KEY,
  private_jwk jsonb NOT NULL,
  public_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
