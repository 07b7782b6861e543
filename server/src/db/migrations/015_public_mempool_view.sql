-- The pool's mempool is private until mined (docs/behaviour.md#private-until-mined), and so are
-- its aggregates: the /mempool/ view, the health details and the Prometheus
-- metrics (when METRICS_TOKEN is unset) are for signed-in staff unless an
-- administrator turns this on. Off by default.

INSERT INTO settings (item, value, description, value_type) VALUES
  ('public_mempool_view', 'false',
   'When true, anyone may see the /mempool/ view, the health details and (without METRICS_TOKEN) the metrics; when false, only signed-in staff',
   'boolean')
ON CONFLICT (item) DO NOTHING;
