-- Settings that staff edit from the dashboard (docs/behaviour.md#settings).
-- value is text whatever its type; value_type says how to validate and show it.

CREATE TABLE settings (
  id serial PRIMARY KEY,
  item text NOT NULL,
  value text NOT NULL,
  description text NOT NULL DEFAULT '',
  value_type text NOT NULL,
  min_value double precision,
  max_value double precision,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT settings_item_key UNIQUE (item),
  CONSTRAINT settings_item_snake_case CHECK (item ~ '^[a-z][a-z0-9]*(_[a-z0-9]+)*$'),
  CONSTRAINT settings_value_type_check CHECK (value_type IN ('number', 'boolean', 'text', 'email', 'url')),
  CONSTRAINT settings_bounds_order CHECK (min_value IS NULL OR max_value IS NULL OR min_value <= max_value),
  -- CASE fixes the evaluation order, so the cast only sees values that are numbers.
  CONSTRAINT settings_value_matches_type CHECK (
    CASE value_type
      WHEN 'number' THEN value ~ '^-?[0-9]+(\.[0-9]+)?$'
      WHEN 'boolean' THEN value IN ('true', 'false')
      ELSE true
    END
  ),
  CONSTRAINT settings_value_within_bounds CHECK (
    CASE
      WHEN value_type = 'number' AND value ~ '^-?[0-9]+(\.[0-9]+)?$' THEN
        (min_value IS NULL OR value::double precision >= min_value)
        AND (max_value IS NULL OR value::double precision <= max_value)
      ELSE true
    END
  )
);

INSERT INTO settings (item, value, description, value_type, min_value, max_value) VALUES
  ('fee_rate_floor', '2',
   'Lowest fee rate (sat/vB) a submission must pay, whatever the market', 'number', 0, NULL),
  ('slipstream_multiplier', '2',
   'Multiple of the rate to beat that a submission must pay', 'number', 1, 100),
  ('contact_email', 'blocks@example.com',
   'Address users write to about a submission', 'email', NULL, NULL),
  ('company_url', 'https://example.com',
   'Website of the company that runs the pool', 'url', NULL, NULL),
  ('maintenance_mode', 'false',
   'When true, the public pages show the maintenance screen and submissions are refused', 'boolean', NULL, NULL),
  ('pool_coinbase_tag', '',
   'Text in the coinbase that identifies the pool''s own blocks', 'text', NULL, NULL),
  ('pool_payout_addresses', '',
   'Comma-separated addresses the pool''s block rewards are paid to', 'text', NULL, NULL);
