import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { btcToSats } from '@slipstream/mempool-engine/bitcoin/amounts';
import { decodeTxHex, encodeTxHex } from '../src/bitcoin/tx-codec.ts';
import type { MempoolMirror } from '@slipstream/mempool-engine/mirror/mempool-mirror';
import { createMirrorSync, type MirrorSync } from '@slipstream/mempool-engine/feed/mirror-sync';
import { openSequenceStream, type SequenceEvent } from '@slipstream/mempool-engine/feed/zmq-sequence';
import { fillRandomMempool } from './helpers/random-mempool.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { nodeRpc, quietLog } from './helpers/test-app.ts';

/**
 * The mempool mirror against the real node: the ZMQ client hears its
 * notifications; the mirror, fed by them (or by polling alone), ends equal
 * to `getrawmempool true` after random additions, chains, replacements
 * (with their descendants), prioritisations and blocks; it resynchronises
 * from scratch after the node restarts and after a lost notification.
 *
 * "Equal": the same txids, and per transaction the same base and modified
 * fees, vsize, weight and in-mempool parents.
 */

interface RawEntry {
  vsize: number;
  weight: number;
  fees: { base: number; modified: number };
  depends: string[];
}

let node: TestNode;
const syncs: MirrorSync[] = [];

before(async () => {
  // -checkmempool=0: regtest would check the whole mempool after every transaction.
  node = await startTestNode({ extraArgs: ['-checkmempool=0'] });
  await node.ensureUtxos(12);
});
after(async () => {
  for (const sync of syncs) await sync.stop();
  await node?.stop();
});

function follow(options: { zmq: boolean; dropMessage?: (n: number, event: SequenceEvent) => boolean }): MirrorSync {
  const sync = createMirrorSync({
    rpc: nodeRpc(node),
    zmqUrl: options.zmq ? node.zmqSequenceUrl : undefined,
    log: quietLog,
    checkIntervalMs: 500,
    pollIntervalMs: 250,
    ...(options.dropMessage ? { zmqDropMessage: options.dropMessage } : {}),
  });
  syncs.push(sync);
  sync.start();
  return sync;
}

type State = Map<string, { fee: number; modifiedFee: number; vsize: number; weight: number; parents: string[] }>;

async function nodeState(): Promise<State> {
  const raw = await node.rpc.call<Record<string, RawEntry>>('getrawmempool', [true]);
  return new Map(Object.entries(raw).map(([txid, e]) => [txid, { fee: btcToSats(e.fees.base), modifiedFee: btcToSats(e.fees.modified), vsize: e.vsize, weight: e.weight, parents: [...e.depends].sort() }]));
}

function mirrorState(mirror: MempoolMirror | undefined): State {
  const state: State = new Map();
  if (!mirror) return state;
  for (const txid of mirror.txids()) {
    const tx = mirror.get(txid)!;
    state.set(txid, { fee: tx.fee, modifiedFee: tx.modifiedFee, vsize: tx.vsize, weight: tx.weight, parents: mirror.parentsOfTx(txid).sort() });
  }
  return state;
}

/** Waits until the mirror equals the node's mempool (it trails by a notification's round trip), or fails showing the difference. */
async function converged(sync: MirrorSync, what: string, timeoutMs = 20_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const expected = await nodeState();
    const actual = mirrorState(sync.mirror);
    const same = expected.size === actual.size && [...expected].every(([txid, e]) => JSON.stringify(actual.get(txid)) === JSON.stringify(e));
    if (same) return Date.now() - started;
    if (Date.now() - started > timeoutMs) {
      const missing = [...expected.keys()].filter((t) => !actual.has(t));
      const extra = [...actual.keys()].filter((t) => !expected.has(t));
      const differing = [...expected].filter(([t, e]) => actual.has(t) && JSON.stringify(actual.get(t)) !== JSON.stringify(e)).slice(0, 3);
      assert.fail(`${what}: the mirror did not converge (node ${expected.size}, mirror ${actual.size}; missing ${missing.length}, extra ${extra.length}; differing ${JSON.stringify(differing.map(([t, e]) => [t, e, actual.get(t)]))}; health ${JSON.stringify(sync.health())})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Replaces `count` random mempool transactions of the random mempool (their
 * inputs are anyone-can-spend, so no signature is needed) by copies paying
 * more: BIP 125 replacements, whose descendants the node evicts with them.
 */
async function replaceSome(txids: string[], count: number): Promise<number> {
  let replaced = 0;
  for (const txid of txids) {
    if (replaced === count) break;
    let hex: string;
    try {
      hex = await node.rpc.call<string>('getrawtransaction', [txid, 0]);
    } catch {
      continue; // mined or replaced already
    }
    const tx = decodeTxHex(hex);
    const richest = tx.outputs.reduce((best, o, i) => (o.value > tx.outputs[best]!.value ? i : best), 0);
    if (tx.outputs[richest]!.value < 200_000) continue;
    const bumped = encodeTxHex({ ...tx, outputs: tx.outputs.map((o, i) => (i === richest ? { ...o, value: o.value - 150_000 } : o)) });
    try {
      await node.rpc.call('sendrawtransaction', [bumped, 0]);
      replaced++;
    } catch {
      // Not enough to pay for its descendants too (BIP 125 rule 3): another one.
    }
  }
  return replaced;
}

test('the ZMQ client hears the node: A for a new transaction, R for the one it replaced, C for a block', async () => {
  const events: SequenceEvent[] = [];
  const connected = Promise.withResolvers<void>();
  const stream = openSequenceStream({ url: node.zmqSequenceUrl }, { onConnected: () => connected.resolve(), onEvent: (e) => events.push(e), onGap: () => assert.fail('gap'), onDisconnected: () => {} });
  try {
    await connected.promise;
    await new Promise((resolve) => setTimeout(resolve, 100)); // the publisher applies the subscription
    const original = await node.buildTx({ feeRate: 3 });
    await node.rpc.call('sendrawtransaction', [original.hex]);
    const replacement = await node.buildReplacement(original.hex, 10);
    await node.rpc.call('sendrawtransaction', [replacement.hex]);
    const { mempool_sequence: next } = await node.rpc.call<{ mempool_sequence: number }>('getrawmempool', [false, true]);
    const [block] = await node.mine(1);
    const deadline = Date.now() + 5_000;
    while (!events.some((e) => e.label === 'C' && e.blockHash === block) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const ours = events.filter((e) => ('txid' in e ? [original.txid, replacement.txid].includes(e.txid) : e.blockHash === block));
    assert.deepEqual(ours.map((e) => ('txid' in e ? `${e.label} ${e.txid}` : `${e.label} ${e.blockHash}`)), [
      `A ${original.txid}`,
      `R ${original.txid}`,
      `A ${replacement.txid}`,
      `C ${block}`,
    ]);
    // getrawmempool's sequence is the next one: every notification before it is numbered below it.
    const sequences = ours.flatMap((e) => ('txid' in e ? [e.mempoolSequence] : []));
    assert.deepEqual(sequences, [...sequences].sort((a, b) => a - b));
    assert.ok(sequences.every((s) => s < next));
  } finally {
    stream.close();
  }
});

test('fed by ZMQ, the mirror converges to the node through random chains, replacements, prioritisations and blocks', async () => {
  const sync = follow({ zmq: true });
  await converged(sync, 'empty start');
  const first = await fillRandomMempool(node, { seed: 11, payments: 500, large: 0, sigopHeavy: 0, prioritised: 10 });
  await converged(sync, 'after 500 random transactions');
  assert.ok(sync.mirror!.count >= 500, `${sync.mirror!.count} transactions mirrored`);
  assert.ok(first.txids.some((txid) => sync.mirror!.parentsOfTx(txid).length > 0), 'with chains');
  assert.ok(await replaceSome(first.txids.slice(50), 8) >= 4, 'some replacements went through');
  await node.rpc.call('prioritisetransaction', [first.txids[3], 0, 77_777]);
  await converged(sync, 'after replacements and a prioritisation');
  await node.mine(1);
  const second = await fillRandomMempool(node, { seed: 12, payments: 300, large: 0, sigopHeavy: 0, prioritised: 5 });
  await replaceSome(second.txids.slice(10), 4);
  await node.mine(1);
  const ms = await converged(sync, 'after two more blocks');
  const health = sync.health();
  assert.equal(health.mode, 'zmq');
  assert.equal(health.gaps, 0);
  assert.equal(health.sequenceGaps, 0, 'no false alarm from blocks, replacements or packages');
  assert.equal(health.driftRepairs, 0, 'ZMQ alone kept it right: no repair poll was needed');
  assert.equal(health.fullResyncs, 1, 'one resync: the first');
  assert.ok(health.lagMs < 1_000, `lag ${health.lagMs} ms while idle`);
  // Mined ones are remembered as such, with their block.
  const minedTx = second.txids.find((txid) => sync.mirror!.removal(txid)?.reason === 'mined');
  assert.ok(minedTx, 'a transaction the block took is remembered as mined');
  assert.match(sync.mirror!.removal(minedTx)!.blockHash!, /^[0-9a-f]{64}$/);
  assert.ok(ms < 20_000);
});

test('without ZMQ, polling alone converges too', async () => {
  const sync = follow({ zmq: false });
  await converged(sync, 'the current mempool');
  const filled = await fillRandomMempool(node, { seed: 13, payments: 200, large: 0, sigopHeavy: 0, prioritised: 3 });
  await replaceSome(filled.txids.slice(20), 3);
  await node.mine(1);
  await fillRandomMempool(node, { seed: 14, payments: 100, large: 0, sigopHeavy: 0, prioritised: 0 });
  await converged(sync, 'after random transactions, replacements and a block');
  const health = sync.health();
  assert.equal(health.mode, 'polling');
  assert.ok(health.polls >= 2);
  assert.ok(health.lagMs < 5_000, `lag ${health.lagMs} ms`);
});

test('a lost notification is noticed by its message sequence, and the mirror resynchronises from scratch', async () => {
  let dropNext = false;
  let dropped: string | undefined;
  const sync = follow({
    zmq: true,
    dropMessage: (_n, event) => {
      if (!dropNext || event.label !== 'A') return false;
      dropNext = false;
      dropped = event.txid;
      return true;
    },
  });
  await converged(sync, 'the current mempool');
  // One notification first, so the stream has a message sequence to count from.
  const first = await node.buildTx({ feeRate: 4 });
  await node.rpc.call('sendrawtransaction', [first.hex]);
  await converged(sync, 'a first transaction');
  const resyncs = sync.health().fullResyncs;
  dropNext = true;
  const lost = await node.buildTx({ feeRate: 4 });
  await node.rpc.call('sendrawtransaction', [lost.hex]);
  const deadline = Date.now() + 5_000;
  while (dropped === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(dropped, lost.txid, 'its notification was dropped on the way');
  // The next notification reveals the gap.
  const next = await node.buildTx({ feeRate: 4 });
  await node.rpc.call('sendrawtransaction', [next.hex]);
  await converged(sync, 'after the lost notification');
  assert.ok(sync.mirror!.has(lost.txid));
  const health = sync.health();
  assert.equal(health.gaps, 1);
  assert.equal(health.fullResyncs, resyncs + 1, 'resynchronised from scratch');
  assert.equal(health.mode, 'zmq');
});

test('a notification lost right after connecting shows as a skipped mempool sequence, and the mirror resynchronises', async () => {
  let dropFirst = true;
  const sync = follow({
    zmq: true,
    dropMessage: (_n, event) => {
      if (!dropFirst || event.label !== 'A') return false;
      dropFirst = false;
      return true;
    },
  });
  await converged(sync, 'the current mempool');
  const resyncs = sync.health().fullResyncs;
  // No earlier message on this connection: the message sequence cannot tell; the mempool sequence can.
  const lost = await node.buildTx({ feeRate: 4 });
  await node.rpc.call('sendrawtransaction', [lost.hex]);
  const next = await node.buildTx({ feeRate: 4 });
  await node.rpc.call('sendrawtransaction', [next.hex]);
  await converged(sync, 'after the lost first notification');
  assert.equal(dropFirst, false, 'a notification was dropped');
  assert.equal(sync.health().sequenceGaps, 1);
  assert.equal(sync.health().fullResyncs, resyncs + 1);
});

test('after the node restarts, the mirror resynchronises from scratch and follows the new ZMQ connection', async () => {
  const zmq = follow({ zmq: true });
  const polling = follow({ zmq: false });
  await converged(zmq, 'before the restart');
  await converged(polling, 'before the restart (polling)');
  const before = { zmq: zmq.health().fullResyncs, polling: polling.health().fullResyncs };
  await node.restart();
  // The mempool comes back from mempool.dat; the new node numbers its notifications and sequence from the start.
  const after = await node.buildTx({ feeRate: 5 });
  await node.rpc.call('sendrawtransaction', [after.hex]);
  await converged(zmq, 'after the restart', 30_000);
  await converged(polling, 'after the restart (polling)', 30_000);
  assert.ok(zmq.mirror!.has(after.txid));
  assert.ok(zmq.health().fullResyncs > before.zmq, 'the ZMQ-fed mirror resynchronised');
  assert.ok(polling.health().fullResyncs > before.polling, 'the polling mirror saw the restart (uptime) and resynchronised');
  // Back on ZMQ: the next change arrives by notification.
  const deadline = Date.now() + 10_000;
  while (zmq.health().mode !== 'zmq' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(zmq.health().mode, 'zmq');
  const later = await node.buildTx({ feeRate: 5 });
  await node.rpc.call('sendrawtransaction', [later.hex]);
  await converged(zmq, 'a transaction after the restart');
});
