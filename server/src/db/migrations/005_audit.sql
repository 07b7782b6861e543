-- The request audit trail (docs/behaviour.md#data-shapes, Audit log). Written once per request,
-- so only the indexes the /audits/list filters need (docs/behaviour.md#logs):
-- ip_or_endpoint, client_code, from_date/to_date, method, is_success, source_type,
-- newest first.

CREATE TABLE audit_logs (
  id bigserial PRIMARY KEY,
  ip_address text,
  endpoint text,
  http_method text,
  client_code text,
  request_at timestamptz NOT NULL DEFAULT now(),
  request_payload text,
  response_payload text,
  response_time_ms double precision,
  error_message text,
  source_type text,
  is_success boolean NOT NULL,
  CONSTRAINT audit_logs_source_type_check CHECK (source_type IN ('Internal', 'External'))
);

-- The list order and the date-range filter.
CREATE INDEX audit_logs_request_at_idx ON audit_logs (request_at DESC, id DESC);
CREATE INDEX audit_logs_client_code_idx ON audit_logs (client_code, request_at DESC);
-- ip_or_endpoint matches either column.
CREATE INDEX audit_logs_ip_address_idx ON audit_logs (ip_address, request_at DESC);
CREATE INDEX audit_logs_endpoint_idx ON audit_logs (endpoint, request_at DESC);
CREATE INDEX audit_logs_http_method_idx ON audit_logs (http_method, request_at DESC);
CREATE INDEX audit_logs_source_type_idx ON audit_logs (source_type, request_at DESC);
-- Failures are rare and what staff look for; is_success = true is most rows and
-- is served well enough by the request_at index.
CREATE INDEX audit_logs_failures_idx ON audit_logs (request_at DESC, id DESC) WHERE NOT is_success;
