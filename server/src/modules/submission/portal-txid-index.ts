import type { Database } from '../../db/database.ts';
import type { Logger } from '../../lib/logger.ts';
import { holdsKey, txidKey } from '@slipstream/mempool-engine/queries/block-txids';
import { PORTAL_TXIDS_CHANNEL, portalAcceptedTxidStarts } from './portal-records.repository.ts';

/**
 * Which txids the portal accepted, in memory, so that a public request about
 * a txid it never recorded (anyone may ask about any txid, a fresh random one
 * each time) is answered with no database query: `mayHold` false means the
 * portal never accepted it, for certain; true means ask the database, which
 * decides (portal-records.repository.ts). A stranger's status check of a
 * random txid then costs what one of a recorded transaction does.
 *
 * Complete, never exact: every txid the portal accepted is in it (false
 * negatives would make a recorded transaction "not found"); a few it did not
 * may be too (two txids sharing their first 13 hex digits, about one in
 * 2^52 for each recorded one; a submission the node accepted whose record
 * then failed). Those cost a query and answer nothing false.
 *
 * How it stays complete:
 * - At start it loads the keys of every accepted txid, after it listens to
 *   the database's notifications (migration 028: each write that makes a
 *   transaction the portal's notifies its txid at commit), so that nothing
 *   accepted meanwhile is missed. Until loaded it answers true (ask).
 * - This instance adds a txid itself before it records an accepted
 *   submission (`add`), so its own caller never outruns the notification.
 *   Another instance's acceptance arrives by notification, within
 *   milliseconds of its commit: a status check sent to this instance in
 *   between answers 404, as if it had come before the submission.
 * - When the notification connection drops it answers true again until it
 *   listens anew and has reloaded everything.
 *
 * Memory: the keys of block-txids.ts, 8 bytes each, in a sorted typed array
 * searched by bisection, and those added since in a Set folded into it now
 * and then: about 8 MB per million accepted transactions.
 */

/** Keys held in the Set before they are folded into the sorted array. */
const FOLD_AT = 65_536;

export interface PortalTxidIndex {
  /** False only when the portal certainly never accepted `txid`. */
  mayHold(txid: string): boolean;
  /** Counts `txids` as the portal's from now on (before their record is written). */
  add(txids: readonly string[]): void;
  /** Listens for acceptances and loads those recorded so far; answers "ask" (true) until loaded. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Whether it answers from memory now (loaded, and listening). */
  readonly ready: boolean;
  /** Keys held (a txid accepted twice, or by two routes, may count twice). */
  readonly size: number;
}

export interface PortalTxidIndexDeps {
  db: Database;
  log: Logger;
}

export function createPortalTxidIndex(deps: PortalTxidIndexDeps): PortalTxidIndex {
  const { db, log } = deps;
  let sorted = new Float64Array(0);
  let recent = new Set<number>();
  let ready = false;
  // Bumped by every (re)load: a load overtaken by a newer one does not mark the index ready.
  let generation = 0;
  let subscription: { stop(): Promise<void> } | undefined;
  let stopped = false;
  // While a load runs, keys stay in `recent`: the loaded set replaces `sorted` at its end.
  let loading = false;

  function addKey(key: number): void {
    recent.add(key);
    if (recent.size >= FOLD_AT && !loading) fold();
  }

  function fold(): void {
    const merged = new Float64Array(sorted.length + recent.size);
    merged.set(sorted);
    let n = sorted.length;
    for (const key of recent) merged[n++] = key;
    sorted = merged.sort();
    recent = new Set();
  }

  /**
   * Loads every accepted txid, listening already: a transaction accepted
   * after the load read its table arrives as a notification, into `recent`,
   * which the load keeps. What it read replaces `sorted` (a reload after a
   * lost connection starts from the database's truth, not a copy of it).
   */
  async function reload(): Promise<void> {
    const mine = ++generation;
    ready = false;
    loading = true;
    try {
      const loaded: number[] = [];
      for await (const starts of portalAcceptedTxidStarts(db)) {
        if (mine !== generation || stopped) return;
        for (const start of starts) {
          const key = txidKey(start);
          if (key !== undefined) loaded.push(key);
        }
      }
      if (mine !== generation || stopped) return;
      sorted = Float64Array.from(loaded).sort();
      ready = true;
    } finally {
      if (mine === generation) loading = false;
    }
    if (recent.size >= FOLD_AT) fold();
    log.info({ keys: sorted.length + recent.size }, 'Portal txid index loaded');
  }

  function reloadInBackground(): void {
    reload().catch((err: unknown) => {
      // Not ready: every request asks the database, as before the index existed. The next reconnection retries.
      log.error({ err }, 'Could not load the portal txid index; status checks ask the database meanwhile');
    });
  }

  return {
    mayHold(txid) {
      if (!ready) return true;
      const key = txidKey(txid);
      if (key === undefined) return true;
      return recent.has(key) || holdsKey(sorted, key);
    },
    add(txids) {
      for (const txid of txids) {
        const key = txidKey(txid);
        if (key !== undefined) addKey(key);
      }
    },
    async start() {
      stopped = false;
      let first: Promise<void> | undefined;
      subscription = await db.listen(PORTAL_TXIDS_CHANNEL, {
        onNotify: (txid) => {
          const key = txidKey(txid);
          if (key !== undefined) addKey(key);
        },
        onListening: () => {
          if (first === undefined) first = reload();
          else reloadInBackground();
        },
        onLost: (err) => {
          ready = false;
          generation++;
          log.warn({ err }, 'Lost the database notifications of portal txids; status checks ask the database until they resume');
        },
      });
      // The first load is awaited (a start that cannot read its database fails as any other would); later ones run behind.
      if (first) await first;
    },
    async stop() {
      stopped = true;
      ready = false;
      await subscription?.stop();
      subscription = undefined;
    },
    get ready() {
      return ready;
    },
    get size() {
      return sorted.length + recent.size;
    },
  };
}

/** An index that always says "ask the database": for code built without one. */
export const ASK_THE_DATABASE: PortalTxidIndex = {
  mayHold: () => true,
  add: () => {},
  start: async () => {},
  stop: async () => {},
  ready: false,
  size: 0,
};
