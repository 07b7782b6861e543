import { AsyncLocalStorage } from 'node:async_hooks';
import type { RpcBatchItem, RpcCall, RpcClient } from '../bitcoin/rpc-client.ts';
import type { Logger } from '../lib/logger.ts';
import { MAX_OUTPUT_LOOKUPS } from '../modules/status/bump-advice.ts';

/**
 * What one anonymous request may cost the pool's node (docs/architecture.md, code
 * conventions 13): no work that grows with the node's chain state or
 * mempool, and a fixed number of calls per request, declared here for every
 * public read and enforced in one place: the RPC client the services use is
 * metered (meter.wrap), and the public scope (http/public-scope.ts) runs
 * each route listed in PUBLIC_ROUTE_NODE_CALLS inside its budget
 * (meter.run). A call past the budget is refused and logged, never sent.
 * The tests (test/node-call-budget.test.ts) count the calls of every route
 * and case against the same table.
 *
 * A call is one round trip: one RPC call, or one batch. The only batch on
 * these paths reads the inputs of a transaction the portal recorded (its
 * size bounded when it was accepted), never anything a stranger chose.
 */

export const NODE_CALLS = {
  /**
   * The status of a txid the portal never recorded, held by none of the
   * blocks the portal follows: answered from the block tracker's txid index
   * (mempool-engine/src/queries/block-txids.ts) with no node call.
   */
  unrecordedUnknown: 0,
  /**
   * Held by one of them: getrawtransaction with that block's hash and
   * verbosity 2, which reads that block only (never gettxoutproof, which
   * without a block hash looks the txid up in the UTXO set output by output,
   * holding cs_main).
   */
  unrecordedMined: 1,
  /**
   * The status of a transaction the portal recorded (a submission, a
   * package member, an attempt kept as failed), at most: waiting in the
   * mempool, getmempoolentry and getrawtransaction (its size) when the
   * engine has not projected it (and getmempoolancestors and
   * getmempooldescendants when the engine does not hold it yet and it has
   * unconfirmed relatives), then the bump advice (getrawtransaction,
   * getmempoolinfo, and one gettxspendingprevout over at most
   * MAX_OUTPUT_LOOKUPS outputs when a child submitted here spends it), well
   * within the budget. The other cases cost less:
   * mined, getmempoolentry and up to two getrawtransaction + getblockheader
   * (5); gone, those and gettxspendingprevout and one gettxout batch (7).
   */
  recorded: 2 + 4 + MAX_OUTPUT_LOOKUPS,
  /** An explorer read's details (explorer-details.ts): decoderawtransaction, and its prevouts (getrawtransaction in its block, or a gettxout batch). */
  explorerDetails: 2,
  /**
   * A receipt's merkle proof (modules/receipts/receipts.service.ts), once its
   * signature checked: gettxoutproof WITH the hash of the block the portal
   * knows holds it, which reads that one block from disk (never the UTXO-set
   * walk it does without a hash). None for a receipt that does not verify,
   * or whose transaction no known block holds.
   */
  receiptProof: 1,
} as const;

/** Every public read that may reach the node, by method and full path, and the node calls one request may make. */
export const PUBLIC_ROUTE_NODE_CALLS: Readonly<Record<string, number>> = {
  'GET /rest-api/status-check': NODE_CALLS.recorded,
  'GET /api/transactions/status': NODE_CALLS.recorded,
  'GET /api/tx/:txid': NODE_CALLS.recorded + NODE_CALLS.explorerDetails,
  'GET /api/tx/:txid/status': NODE_CALLS.recorded,
  // The portal's own copy, from the database alone.
  'GET /api/tx/:txid/hex': 0,
  'POST /api/receipts/proof': NODE_CALLS.receiptProof,
  // The published keys: from the database (cached), never the node.
  'GET /.well-known/jwks.json': 0,
};

/** A node call refused because the request has spent its budget. */
export class NodeCallBudgetError extends Error {
  constructor(route: string, limit: number, method: string) {
    super(`${route} may make at most ${limit} node calls a request; ${method} was refused`);
    this.name = 'NodeCallBudgetError';
  }
}

interface Spending {
  route: string;
  limit: number;
  /** The methods called so far (a batch as `batch:<methods>`). */
  calls: string[];
  /** False once the request has been answered: work it left behind is not its to pay for. */
  open: boolean;
}

export interface NodeCallMeter {
  /** `rpc`, its calls counted against the budget of the request they are made for (calls made outside one pass unmetered). */
  wrap(rpc: RpcClient): RpcClient;
  /** Runs `answer` as one request of `route`, which may make at most `limit` node calls. */
  run<T>(route: string, limit: number, answer: () => T | Promise<T>): Promise<T>;
  /** Within a request: at most `calls` more node calls from here on (a path that is known to cost less than its route may). */
  limit(calls: number): void;
}

export interface NodeCallMeterOptions {
  log: Logger;
  /** Told of every metered request once answered: its route and the node calls it made (tests). */
  observe?: (route: string, calls: readonly string[]) => void;
}

export function createNodeCallMeter(options: NodeCallMeterOptions): NodeCallMeter {
  const { log, observe } = options;
  const requests = new AsyncLocalStorage<Spending>();

  /** Counts the call against the current request's budget; the refusal when it is spent. */
  function spend(method: string): NodeCallBudgetError | undefined {
    const spending = requests.getStore();
    if (!spending?.open) return undefined;
    if (spending.calls.length >= spending.limit) {
      log.error({ route: spending.route, limit: spending.limit, method, calls: spending.calls }, 'node call refused: the request has spent its node call budget');
      return new NodeCallBudgetError(spending.route, spending.limit, method);
    }
    spending.calls.push(method);
    return undefined;
  }

  function wrap(rpc: RpcClient): RpcClient {
    return {
      call<T>(method: string, params?: unknown[]): Promise<T> {
        const refused = spend(method);
        return refused ? Promise.reject(refused) : rpc.call<T>(method, params);
      },
      batch<T>(calls: RpcCall[]): Promise<RpcBatchItem<T>[]> {
        const refused = spend(`batch:${[...new Set(calls.map((c) => c.method))].sort().join('+')}`);
        return refused ? Promise.reject(refused) : rpc.batch<T>(calls);
      },
      wallet: (name) => wrap(rpc.wallet(name)),
    };
  }

  return {
    wrap,
    run(route, limit, answer) {
      const spending: Spending = { route, limit, calls: [], open: true };
      return requests.run(spending, async () => {
        try {
          return await answer();
        } finally {
          spending.open = false;
          observe?.(route, spending.calls);
        }
      });
    },
    limit(calls) {
      const spending = requests.getStore();
      if (spending?.open) spending.limit = Math.min(spending.limit, spending.calls.length + calls);
    },
  };
}
