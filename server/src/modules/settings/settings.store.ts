import type { Queryable } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { settingValues } from './settings.repository.ts';

/**
 * The settings the public API needs on every request. They are read from the
 * database and kept for a short time: every submission would otherwise pay a
 * query, and a change made on one server instance must still reach the others
 * within seconds, without a restart.
 */
export interface PortalSettings {
  feeRateFloor: number;
  multiplier: number;
  maintenanceMode: boolean;
  contactEmail: string;
  companyUrl: string;
  /** Text in the coinbase scriptSig that marks the pool's own blocks ('' when unset). */
  poolCoinbaseTag: string;
  /** Addresses the pool's coinbases pay (the comma-separated setting, trimmed, blanks dropped). */
  poolPayoutAddresses: string[];
  /** Anyone may see the private mempool's aggregates (the /mempool/ view, health details, metrics); off: staff only. */
  publicMempoolView: boolean;
  /** How long a fee quote holds once issued (modules/quotes/), in minutes. */
  quoteValidityMinutes: number;
  /** The pool's name, as its receipts give it (modules/receipts/). */
  poolName: string;
}

export interface SettingsStore {
  get(): Promise<PortalSettings>;
  /** Forget the cached copy: the next get() reads the database (called after an update). */
  invalidate(): void;
}

interface SettingRow {
  item: string;
  value: string;
}

export function parsePortalSettings(rows: SettingRow[]): PortalSettings {
  const map = new Map(rows.map((r) => [r.item, r.value]));
  const number = (item: string): number => {
    const value = Number(map.get(item));
    if (!Number.isFinite(value)) throw new Error(`Setting ${item} is missing or not a number`);
    return value;
  };
  return {
    feeRateFloor: number('fee_rate_floor'),
    multiplier: number('slipstream_multiplier'),
    maintenanceMode: map.get('maintenance_mode') === 'true',
    contactEmail: map.get('contact_email') ?? '',
    companyUrl: map.get('company_url') ?? '',
    poolCoinbaseTag: (map.get('pool_coinbase_tag') ?? '').trim(),
    poolPayoutAddresses: (map.get('pool_payout_addresses') ?? '').split(',').map((a) => a.trim()).filter((a) => a !== ''),
    publicMempoolView: map.get('public_mempool_view') === 'true',
    quoteValidityMinutes: number('quote_validity_minutes'),
    poolName: (map.get('pool_name') ?? '').trim(),
  };
}

export function createSettingsStore(db: Queryable, clock: Clock, options: { ttlMs?: number } = {}): SettingsStore {
  const ttlMs = options.ttlMs ?? 2_000;
  let cached: { value: PortalSettings; at: number } | undefined;
  return {
    async get() {
      const now = clock.now().getTime();
      if (cached && now - cached.at < ttlMs) return cached.value;
      cached = { value: parsePortalSettings(await settingValues(db)), at: now };
      return cached.value;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
