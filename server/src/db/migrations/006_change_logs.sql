-- Who changed what on the dashboard: settings, discount codes, clients
-- (docs/behaviour.md#data-shapes: Setting log, Discount log, Client log).
-- previous_values / updated_values hold the row as JSON (jsonb).

CREATE TABLE setting_logs (
  id bigserial PRIMARY KEY,
  setting_id integer CONSTRAINT setting_logs_setting_id_fkey REFERENCES settings (id) ON DELETE SET NULL,
  item text NOT NULL,
  username text NOT NULL,
  previous_value text,
  updated_value text,
  updated_time timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX setting_logs_updated_time_idx ON setting_logs (updated_time DESC, id DESC);
CREATE INDEX setting_logs_item_idx ON setting_logs (item, updated_time DESC);
CREATE INDEX setting_logs_username_idx ON setting_logs (lower(username) text_pattern_ops);

CREATE TABLE discount_logs (
  id bigserial PRIMARY KEY,
  username text NOT NULL,
  action text NOT NULL,
  client_code text,
  previous_values jsonb,
  updated_values jsonb,
  action_time timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT discount_logs_action_check CHECK (action IN ('Create', 'Update', 'Delete'))
);

CREATE INDEX discount_logs_action_time_idx ON discount_logs (action_time DESC, id DESC);
CREATE INDEX discount_logs_client_code_idx ON discount_logs (client_code, action_time DESC);
CREATE INDEX discount_logs_username_idx ON discount_logs (lower(username) text_pattern_ops);
CREATE INDEX discount_logs_action_idx ON discount_logs (action, action_time DESC);

-- "timestamp" is a non-reserved keyword: valid unquoted as a column name.
CREATE TABLE client_logs (
  id bigserial PRIMARY KEY,
  username text NOT NULL,
  client_name text,
  action text NOT NULL,
  previous_values jsonb,
  updated_values jsonb,
  timestamp timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT client_logs_action_check CHECK (action IN ('Create', 'Update', 'Delete'))
);

CREATE INDEX client_logs_timestamp_idx ON client_logs (timestamp DESC, id DESC);
CREATE INDEX client_logs_client_name_idx ON client_logs (lower(client_name) text_pattern_ops);
CREATE INDEX client_logs_username_idx ON client_logs (lower(username) text_pattern_ops);
CREATE INDEX client_logs_action_idx ON client_logs (action, timestamp DESC);
