import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RpcError, RpcTransportError, type RpcClient } from '../bitcoin/rpc-client.ts';
import { instrumentRpc } from './instrument-rpc.ts';
import { createMetrics } from './metrics-registry.ts';

/** A node double answering from a table: the decorator is what is under test, not the client. */
function fakeRpc(answers: Record<string, () => unknown>, path: string[] = []): RpcClient {
  return {
    async call<T>(method: string) {
      const answer = answers[method];
      if (!answer) throw new Error(`unexpected ${method}`);
      return answer() as T;
    },
    async batch<T>(calls: Array<{ method: string }>) {
      return calls.map((c) => {
        try {
          return { ok: true as const, result: answers[c.method]!() as T };
        } catch (error) {
          return { ok: false as const, error: error as RpcError };
        }
      });
    },
    wallet: (name) => fakeRpc(answers, [...path, name]),
  };
}

const value = async (metric: { get(): Promise<{ values: Array<{ labels: Record<string, unknown>; value: number; metricName?: string }> }> }, labels: Record<string, string>, metricName?: string) =>
  (await metric.get()).values.find(
    (v) => (metricName === undefined || v.metricName === metricName) && Object.entries(labels).every(([k, l]) => v.labels[k] === l),
  )?.value;

test('every call is timed by method; failures are counted by kind and rethrown unchanged', async () => {
  const metrics = createMetrics();
  const refused = new RpcError('sendrawtransaction', -26, 'insufficient fee');
  const down = new RpcTransportError('getblockcount', 'unreachable', 'down');
  const rpc = instrumentRpc(
    fakeRpc({
      getblockchaininfo: () => ({ chain: 'regtest' }),
      sendrawtransaction: () => {
        throw refused;
      },
      getblockcount: () => {
        throw down;
      },
    }),
    metrics,
  );
  assert.deepEqual(await rpc.call('getblockchaininfo'), { chain: 'regtest' });
  await assert.rejects(rpc.call('sendrawtransaction', ['00']), (error) => error === refused);
  await assert.rejects(rpc.call('getblockcount'), (error) => error === down);
  await assert.rejects(rpc.wallet('w').call('getblockcount'), (error) => error === down);

  const count = (method: string) => value(metrics.rpcDuration, { method }, 'slipstream_node_rpc_duration_seconds_count');
  assert.equal(await count('getblockchaininfo'), 1);
  assert.equal(await count('sendrawtransaction'), 1);
  assert.equal(await count('getblockcount'), 2, 'a wallet client is measured too');
  assert.equal(await value(metrics.rpcErrors, { method: 'sendrawtransaction', kind: 'refused' }), 1);
  assert.equal(await value(metrics.rpcErrors, { method: 'getblockcount', kind: 'unreachable' }), 2);
  assert.equal(await value(metrics.rpcErrors, { method: 'getblockchaininfo' }), undefined);
});

test('a batch is timed once under its methods, and each refused item counts under its own method', async () => {
  const metrics = createMetrics();
  const rpc = instrumentRpc(
    fakeRpc({
      getmempoolentry: () => {
        throw new RpcError('getmempoolentry', -5, 'Transaction not in mempool');
      },
      getrawtransaction: () => '00',
    }),
    metrics,
  );
  const answers = await rpc.batch([{ method: 'getrawtransaction' }, { method: 'getmempoolentry' }, { method: 'getmempoolentry' }]);
  assert.deepEqual(answers.map((a) => a.ok), [true, false, false]);
  assert.equal(await value(metrics.rpcDuration, { method: 'batch:getmempoolentry+getrawtransaction' }, 'slipstream_node_rpc_duration_seconds_count'), 1);
  assert.equal(await value(metrics.rpcErrors, { method: 'getmempoolentry', kind: 'refused' }), 2);
});

test('two registries in one process are independent', async () => {
  const a = createMetrics();
  const b = createMetrics();
  a.submissions.inc({ kind: 'tx', outcome: 'accepted' });
  assert.equal(await value(a.submissions, { kind: 'tx', outcome: 'accepted' }), 1);
  assert.equal(await value(b.submissions, { kind: 'tx', outcome: 'accepted' }), 0);
  assert.notEqual(a.registry, b.registry);
});
