/**
 * What the portal may store as failed submissions kept for retry (docs/architecture.md,
 * convention 13: what one request may make the portal store is bounded per
 * address and per day), and for how long. Parsed from the environment in
 * config.ts; the submission path (submission-context.ts fail()) and the
 * retention job (failed-txs-retention.ts) apply them.
 */

/** What one client address may make the portal store as failed submissions in any 24 hours. */
export interface FailureStorageBound {
  /** New rows (FAILED_TX_MAX_ROWS_PER_ADDRESS_PER_DAY). */
  maxRowsPerAddressPerDay: number;
  /** Bytes of transaction hex in those rows (FAILED_TX_MAX_BYTES_PER_ADDRESS_PER_DAY). */
  maxBytesPerAddressPerDay: number;
}

/**
 * The defaults: a few dozen failures a day is far more than one honest
 * submitter has, and 8 MiB of hex holds one transaction of the largest size
 * a block can take (4,000,000 weight units, at most about 4 MB of bytes).
 */
export const DEFAULT_FAILURE_STORAGE: FailureStorageBound = { maxRowsPerAddressPerDay: 25, maxBytesPerAddressPerDay: 8 * 1024 * 1024 };

/** FAILED_TX_RETENTION_DAYS: rows untouched this long are deleted. */
export const DEFAULT_FAILED_TX_RETENTION_DAYS = 30;
