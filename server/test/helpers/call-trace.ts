import type { RpcClient } from '../../src/bitcoin/rpc-client.ts';

/**
 * `target` with every method call written to `trace`: the method, and its
 * arguments with `txid` replaced by a placeholder, so that the work behind
 * two answers (a private transaction's and an unknown one's) can be compared.
 * `others`: more ids to replace (e.g. the spending transaction's own txid, which
 * differs between the two and says nothing about the private one).
 */
export function recording<T extends object>(target: T, name: string, trace: string[], txid: string, others: Record<string, string> = {}): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        let text = JSON.stringify(args).replaceAll(txid, 'TXID');
        for (const [id, placeholder] of Object.entries(others)) text = text.replaceAll(id, placeholder);
        trace.push(`${name}.${String(property)}(${text})`);
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

/**
 * `rpc` with every node call written to `calls` as the node-call meter names
 * it (http/node-call-budget.ts): its method, or `batch:<methods>` for a batch
 * (one round trip). Counted outside the meter, so a test can check both.
 */
export function countingRpc(rpc: RpcClient, calls: string[]): RpcClient {
  return {
    call: (method, params) => {
      calls.push(method);
      return rpc.call(method, params);
    },
    batch: (batch) => {
      calls.push(`batch:${[...new Set(batch.map((c) => c.method))].sort().join('+')}`);
      return rpc.batch(batch);
    },
    wallet: (name) => countingRpc(rpc.wallet(name), calls),
  };
}
