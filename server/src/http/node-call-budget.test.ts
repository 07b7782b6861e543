import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RpcCall, RpcClient } from '../bitcoin/rpc-client.ts';
import { createNodeCallMeter, NodeCallBudgetError, PUBLIC_ROUTE_NODE_CALLS } from './node-call-budget.ts';

/**
 * The node-call meter: a request's calls counted against its route's budget,
 * the one past it refused (never sent) and logged; calls outside a request,
 * or left behind by one already answered, are not metered.
 */

function fakeNode() {
  const sent: string[] = [];
  const rpc: RpcClient = {
    call: async <T>(method: string) => (sent.push(method), null as T),
    batch: async <T>(calls: RpcCall[]) => (sent.push(`batch of ${calls.length}`), calls.map(() => ({ ok: true as const, result: null as T }))),
    wallet: () => rpc,
  };
  return { rpc, sent };
}

function meter() {
  const errors: object[] = [];
  const observed: Array<[string, readonly string[]]> = [];
  const log = { info() {}, warn() {}, error: (obj: object) => void errors.push(obj) };
  return { errors, observed, meter: createNodeCallMeter({ log, observe: (route, calls) => void observed.push([route, [...calls]]) }) };
}

test('a request makes at most its budget of node calls: the next is refused, not sent, and logged', async () => {
  const node = fakeNode();
  const { meter: m, errors, observed } = meter();
  const rpc = m.wrap(node.rpc);
  await assert.rejects(
    m.run('GET /x', 2, async () => {
      await rpc.call('getblockheader');
      await rpc.batch([{ method: 'gettxout' }, { method: 'gettxout' }, { method: 'getmempoolentry' }]);
      await rpc.call('gettxoutproof');
    }),
    (error: unknown) => error instanceof NodeCallBudgetError && /GET \/x may make at most 2 node calls/.test(error.message),
  );
  assert.deepEqual(node.sent, ['getblockheader', 'batch of 3'], 'a batch is one call; the refused one never reached the node');
  assert.equal(errors.length, 1);
  assert.deepEqual(observed, [['GET /x', ['getblockheader', 'batch:getmempoolentry+gettxout']]]);
});

test('limit() lowers the budget for the rest of the request only; outside a request nothing is metered', async () => {
  const node = fakeNode();
  const { meter: m } = meter();
  const rpc = m.wrap(node.rpc);
  await m.run('GET /y', 5, async () => {
    await rpc.call('a');
    m.limit(0);
    await assert.rejects(rpc.call('b'), NodeCallBudgetError);
  });
  // Concurrent requests keep their own counts.
  await Promise.all([1, 2].map((n) => m.run(`GET /z${n}`, 1, () => rpc.call('c'))));
  m.limit(0);
  for (let i = 0; i < 10; i++) await rpc.call('outside');
  assert.deepEqual(node.sent, ['a', 'c', 'c', ...Array<string>(10).fill('outside')]);
});

test('work a request left behind is not refused once it has been answered', async () => {
  const node = fakeNode();
  const { meter: m } = meter();
  const rpc = m.wrap(node.rpc);
  let later: (() => Promise<unknown>) | undefined;
  await m.run('GET /w', 0, () => {
    later = () => rpc.call('afterwards');
  });
  await later!();
  assert.deepEqual(node.sent, ['afterwards']);
});

test('the table: the explorer hex read never reaches the node; every status read fits the status of the portal\'s own', () => {
  assert.equal(PUBLIC_ROUTE_NODE_CALLS['GET /api/tx/:txid/hex'], 0);
  assert.equal(PUBLIC_ROUTE_NODE_CALLS['GET /api/transactions/status'], PUBLIC_ROUTE_NODE_CALLS['GET /rest-api/status-check']);
});
