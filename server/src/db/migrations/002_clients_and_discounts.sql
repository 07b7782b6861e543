-- The client registry and the discount codes issued to clients (docs/behaviour.md#data-shapes).

CREATE TABLE clients (
  id serial PRIMARY KEY,
  name text NOT NULL,
  email text,
  phone_number text,
  alternate_phone text,
  address text,
  organization_name text,
  organization_email text,
  description text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT clients_name_key UNIQUE (name),
  CONSTRAINT clients_name_not_blank CHECK (btrim(name) <> '')
);

-- The list filters match case-insensitively from the start of the value:
--   lower(col) LIKE lower($1) || '%'   (with % and _ in $1 escaped)
-- text_pattern_ops lets that LIKE use the index whatever the database collation.
CREATE INDEX clients_name_lower_idx ON clients (lower(name) text_pattern_ops);
CREATE INDEX clients_email_lower_idx ON clients (lower(email) text_pattern_ops);
CREATE INDEX clients_organization_name_lower_idx ON clients (lower(organization_name) text_pattern_ops);
CREATE INDEX clients_created_at_idx ON clients (created_at DESC, id DESC);

CREATE TABLE discount_codes (
  id serial PRIMARY KEY,
  code text NOT NULL,
  -- A client with codes cannot be deleted (its is_deletable is false). NO ACTION
  -- rather than RESTRICT: PostgreSQL 18 (PGlite) reports RESTRICT violations as
  -- 23001 while older servers say 23503; NO ACTION is 23503 everywhere.
  client_id integer NOT NULL CONSTRAINT discount_codes_client_id_fkey REFERENCES clients (id) ON DELETE NO ACTION,
  description text,
  discount_percentage integer NOT NULL,
  valid_from timestamptz NOT NULL,
  valid_until timestamptz NOT NULL,
  status boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT discount_codes_code_key UNIQUE (code),
  CONSTRAINT discount_codes_percentage_range CHECK (discount_percentage BETWEEN 0 AND 99),
  CONSTRAINT discount_codes_valid_range CHECK (valid_from <= valid_until)
);

CREATE INDEX discount_codes_client_id_idx ON discount_codes (client_id);
CREATE INDEX discount_codes_created_at_idx ON discount_codes (created_at DESC, id DESC);
-- Looking up the codes in force: status = true AND now() BETWEEN valid_from AND valid_until.
CREATE INDEX discount_codes_status_valid_until_idx ON discount_codes (status, valid_until);
