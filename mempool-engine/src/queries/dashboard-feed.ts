import type { Logger } from '../logger.ts';
import type { BlockTracker, PoolOdds } from './block-tracker.ts';
import type { MempoolDashboardState, MempoolFeed } from './mempool-feed.ts';
import type { PoolSettingsReader } from './pool-settings.ts';
import type { Published } from './published-views.ts';

/**
 * The /mempool/ dashboard's live feed (mempool-feed.ts): after each view
 * the engine publishes, and again once the block tracker has followed its
 * tip, one state for every subscriber.
 */

export interface DashboardFeedOptions {
  network: string;
  log: Logger;
  tracker: BlockTracker;
  settings: PoolSettingsReader;
  /** The latest view published, read when a state is made. */
  latest: () => Published | undefined;
}

export interface DashboardFeed {
  readonly feed: MempoolFeed;
  /** Makes the latest view's state once the pool settings are read; a newer publication meanwhile supersedes it. */
  publish(): void;
  /** The engine stopped: no more states, no more listeners. */
  close(): void;
}

export function createDashboardFeed(options: DashboardFeedOptions): DashboardFeed {
  const { network, log, tracker, settings } = options;
  let state: MempoolDashboardState | null = null;
  const listeners = new Set<(state: MempoolDashboardState) => void>();
  let version = 0;
  let closed = false;

  function publish(): void {
    const current = options.latest();
    if (!current || closed) return;
    const mine = ++version;
    settings
      .read()
      .then((recogniser) => {
        // A newer publication started meanwhile: it will say what this would have.
        if (mine !== version || closed) return;
        state = dashboardState(network, current, tracker.odds(recogniser));
        notify(listeners, state, log);
      })
      .catch((error: unknown) => settings.warnOnce(error, 'mempool feed: reading the pool settings failed'));
  }

  return {
    feed: {
      current: () => state,
      subscribe(listener) {
        listeners.add(listener);
        return () => {
          listeners.delete(listener);
        };
      },
    },
    publish,
    close() {
      closed = true;
      listeners.clear();
    },
  };
}

function dashboardState(network: string, { view, histogram }: Published, odds: PoolOdds): MempoolDashboardState {
  return {
    network,
    updatedAtMs: view.updatedAtMs,
    lagMs: view.lagMs,
    mempool: view.mempool,
    projectedBlocks: [...view.blocks],
    histogram,
    recentBlocks: odds.recentBlocks,
    poolShare: { last24h: odds.last24h, last7d: odds.last7d, expectedNextBlockSeconds: odds.expectedNextBlockSeconds },
  };
}

function notify(listeners: ReadonlySet<(state: MempoolDashboardState) => void>, state: MempoolDashboardState, log: Logger): void {
  for (const listener of listeners) {
    try {
      listener(state);
    } catch (error) {
      log.error({ err: (error as Error).message }, 'mempool feed listener failed');
    }
  }
}
