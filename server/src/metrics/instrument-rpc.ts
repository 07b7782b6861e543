import { RpcError, RpcTransportError, type RpcBatchItem, type RpcCall, type RpcClient } from '../bitcoin/rpc-client.ts';
import type { Metrics, RpcErrorKind } from './metrics-registry.ts';

/**
 * The RPC client with every call timed and every failure counted, as a
 * decorator: the client itself stays free of metrics, and whoever builds the
 * adapters (runtime.ts, the tests) decides what is measured. Errors pass
 * through unchanged.
 */

export function rpcErrorKind(error: unknown): RpcErrorKind {
  if (error instanceof RpcError) return 'refused';
  if (error instanceof RpcTransportError) return error.kind;
  return 'other';
}

/** A batch's label: its distinct methods, sorted ('batch:getmempoolentry'), bounded by the code that batches. */
function batchLabel(methods: string[]): string {
  return `batch:${[...new Set(methods)].sort().join('+')}`;
}

export function instrumentRpc(rpc: RpcClient, metrics: Pick<Metrics, 'rpcDuration' | 'rpcErrors'>): RpcClient {
  const { rpcDuration, rpcErrors } = metrics;
  return {
    async call<T>(method: string, params?: unknown[]): Promise<T> {
      const stop = rpcDuration.startTimer({ method });
      try {
        return await rpc.call<T>(method, params);
      } catch (error) {
        rpcErrors.inc({ method, kind: rpcErrorKind(error) });
        throw error;
      } finally {
        stop();
      }
    },
    async batch<T>(calls: RpcCall[]): Promise<RpcBatchItem<T>[]> {
      const label = batchLabel(calls.map((c) => c.method));
      const stop = rpcDuration.startTimer({ method: label });
      try {
        const answers = await rpc.batch<T>(calls);
        // Each answer stands on its own: a refused item counts under its own method.
        answers.forEach((answer, i) => {
          if (!answer.ok) rpcErrors.inc({ method: calls[i]?.method ?? label, kind: rpcErrorKind(answer.error) });
        });
        return answers;
      } catch (error) {
        rpcErrors.inc({ method: label, kind: rpcErrorKind(error) });
        throw error;
      } finally {
        stop();
      }
    },
    wallet: (name) => instrumentRpc(rpc.wallet(name), metrics),
  };
}
