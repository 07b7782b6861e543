import type { Clock } from '../../lib/clock.ts';
import { RpcTransportError } from '../../bitcoin/rpc-client.ts';
import type { MempoolReader, MempoolView, TemplateCheck } from '@slipstream/mempool-engine';
import type { PoolOdds } from '@slipstream/mempool-engine/queries/block-tracker';
import type { SynchroTableResponse } from './synchro-table.schemas.ts';

/** The synchro table: the mempool mirror's and the block tracker's state, read from the engine (no node call). */
export interface SynchroTableService {
  table(): Promise<SynchroTableResponse>;
}

export function createSynchroTableService(deps: { mempool: MempoolReader; clock: Clock }): SynchroTableService {
  const { mempool, clock } = deps;
  return {
    async table() {
      const [view, odds] = await Promise.all([currentView(mempool), currentOdds(mempool)]);
      // Read after the view: in synced mode the view brought the mirror up to date first.
      const health = mempool.health();
      const tip = view?.tip ?? odds.recentBlocks[0];
      return {
        generated_at: clock.now().toISOString(),
        mempool: {
          mode: health.mode,
          zmq_connected: health.zmqConnected,
          lag_seconds: Math.max(0, health.lagMs) / 1000,
          last_contact_at: health.lastContactAtMs === undefined ? null : new Date(health.lastContactAtMs).toISOString(),
          last_error: health.lastError ?? null,
          tx_count: view?.mempool.txCount ?? null,
          vsize: view?.mempool.vsize ?? null,
          full_resyncs: health.fullResyncs,
          polls: health.polls,
          gaps: health.gaps,
          projections: health.projections,
        },
        blocks: {
          tip_height: tip?.height ?? null,
          tip_hash: tip?.hash ?? null,
          last_24h_odds: odds.last24h,
          last_7d_odds: odds.last7d,
          odds_note: odds.note,
          recent: odds.recentBlocks,
        },
        template: templateRow(mempool.templateCheck()),
      };
    },
  };
}

function templateRow({ comparison, following, lastError, checks }: TemplateCheck): SynchroTableResponse['template'] {
  return {
    following: following === 'node-template' ? 'node_template' : 'projection',
    checked_at: comparison ? new Date(comparison.checkedAtMs).toISOString() : null,
    checks,
    last_error: lastError ?? null,
    template_txs: comparison?.templateTxs ?? null,
    projection_txs: comparison?.projectionTxs ?? null,
    template_only: comparison?.templateOnly ?? null,
    projection_only: comparison?.projectionOnly ?? null,
    agreement: comparison?.agreement ?? null,
  };
}

/** The engine's current view; undefined while the node cannot be reached (the table then shows the mirror's error). */
async function currentView(mempool: MempoolReader): Promise<MempoolView | undefined> {
  try {
    return await mempool.view();
  } catch (error) {
    if (error instanceof RpcTransportError) return undefined;
    throw error;
  }
}

/** The tracker's odds; unknown, saying why, while the node cannot be reached (an operator's probe still gets the table). */
async function currentOdds(mempool: MempoolReader): Promise<PoolOdds> {
  try {
    return await mempool.odds();
  } catch (error) {
    if (!(error instanceof RpcTransportError)) throw error;
    return { last24h: null, last7d: null, expectedNextBlockSeconds: null, recentBlocks: [], note: 'The node cannot be reached, so the recent blocks cannot be read.' };
  }
}
