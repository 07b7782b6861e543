-- Durable background work (docs/architecture.md#layout: jobs are claimed with row locks so that
-- several server instances never do the same work twice). A job is claimed by
-- taking a lease (locked_by, locked_until) in the same statement that finds it
-- (FOR UPDATE SKIP LOCKED); a worker that dies leaves its lease to expire and
-- another instance takes the job over.
--
-- kinds: 'track' (follow one accepted transaction until it is settled),
-- 'scan-blocks' (match new blocks against tracked transactions), 'retry'
-- (resubmit a failed transaction staff selected).

CREATE TABLE jobs (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  -- At most one open job per key ('track:<txid>', 'retry:<failed_txs.id>'):
  -- enqueueing the same work twice, even at the same moment, queues it once.
  key text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  state text NOT NULL DEFAULT 'queued',
  run_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  -- Bumped by every wake-up (a block, a mempool change): a worker that was
  -- running the job when it was woken runs it again at once instead of
  -- sleeping past the news.
  wakes integer NOT NULL DEFAULT 0,
  locked_by text,
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CONSTRAINT jobs_kind_check CHECK (kind IN ('track', 'scan-blocks', 'retry')),
  CONSTRAINT jobs_state_check CHECK (state IN ('queued', 'running', 'done', 'failed')),
  CONSTRAINT jobs_attempts_nonnegative CHECK (attempts >= 0)
);

CREATE UNIQUE INDEX jobs_open_key ON jobs (key) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_due_idx ON jobs (run_at, id) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE state IN ('done', 'failed');

-- How a tracked transaction ended, in the node's words where it gave any
-- ('missing-inputs' for one whose parent is gone, a mempool-fee refusal, ...),
-- and how often it was handed back to a node that had lost it.
ALTER TABLE tx_submissions ADD COLUMN outcome_reason text;
ALTER TABLE tx_submissions ADD COLUMN rebroadcasts integer NOT NULL DEFAULT 0;

-- The same outcome for each member of a package submission (a package's
-- members may be mined in different blocks, or one replaced and not another).
CREATE TABLE package_tx_outcomes (
  txid text PRIMARY KEY,
  status text NOT NULL DEFAULT 'accepted',
  block_hash text,
  block_height integer,
  block_time timestamptz,
  replaced_by text,
  outcome_reason text,
  rebroadcasts integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT package_tx_outcomes_txid_hex CHECK (txid ~ '^[0-9a-f]{64}$'),
  CONSTRAINT package_tx_outcomes_status_check
    CHECK (status IN ('accepted', 'confirmed', 'replaced', 'evicted', 'conflicted')),
  CONSTRAINT package_tx_outcomes_confirmed_has_block
    CHECK (status <> 'confirmed' OR (block_hash IS NOT NULL AND block_height IS NOT NULL))
);

-- Where block matching has got to: the last block whose transactions were
-- compared with the tracked ones. One row.
CREATE TABLE tracker_cursor (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  block_hash text NOT NULL,
  block_height integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every transaction already accepted is tracked from now on.
INSERT INTO jobs (kind, key, payload)
SELECT 'track', 'track:' || txid, jsonb_build_object('txid', txid)
FROM tx_submissions WHERE status = 'accepted'
ON CONFLICT DO NOTHING;

INSERT INTO package_tx_outcomes (txid)
SELECT DISTINCT unnest(txids) FROM package_submissions
ON CONFLICT DO NOTHING;

INSERT INTO jobs (kind, key, payload)
SELECT 'track', 'track:' || txid, jsonb_build_object('txid', txid)
FROM package_tx_outcomes
ON CONFLICT DO NOTHING;
