import { createHash } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RpcCall, RpcCaller } from '../rpc-caller.ts';
import { ODDS_COUNTING_NOTE, ODDS_UNIDENTIFIED_NOTE, createBlockTracker, type PoolRecogniser } from './block-tracker.ts';

/** Mainnet addresses from Bitcoin Core's key_io_valid.json. */
const POOL_ADDRESS = 'bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv';
const OTHER_ADDRESS = '1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo';

/**
 * The pool's share over the last 144 and 1,008 blocks, on a chain held in
 * memory behind the node's RPC methods: each block read once, a
 * reorganisation replacing exactly the blocks it replaced.
 */

interface FakeBlock {
  hash: string;
  height: number;
  prev: string | undefined;
  tag: string;
  address: string;
}

/** The one transaction besides the coinbase in the fake block `hash`. */
const paymentIn = (hash: string) => createHash('sha256').update(hash).digest('hex');

function fakeChain() {
  const blocks = new Map<string, FakeBlock>();
  let active: string[] = [];
  const fetched: string[] = [];
  let calls = 0;
  const extend = (count: number, tag: (height: number) => string, fork = '') => {
    for (let i = 0; i < count; i++) {
      const height = active.length;
      const hash = `${fork}${height}`.padStart(64, 'f');
      blocks.set(hash, { hash, height, prev: active.at(-1), tag: tag(height), address: tag(height) === 'pool' ? POOL_ADDRESS : OTHER_ADDRESS });
      active.push(hash);
    }
    return { hash: active.at(-1)!, height: active.length - 1 };
  };
  const answer = (method: string, params: unknown[]): unknown => {
    if (method === 'getblockhash') return active[params[0] as number];
    const block = blocks.get(params[method === 'getrawtransaction' ? 2 : 0] as string)!;
    if (method === 'getblock') {
      fetched.push(block.hash);
      return { hash: block.hash, height: block.height, time: 1_700_000_000 + block.height * 600, nTx: 2, previousblockhash: block.prev, tx: [`cb${block.hash}`, paymentIn(block.hash)] };
    }
    if (method === 'getblockheader') return { height: block.height, previousblockhash: block.prev };
    if (method === 'getrawtransaction') return { vin: [{ coinbase: Buffer.from(`\x03abc/${block.tag}/`).toString('hex') }], vout: [{ scriptPubKey: { address: block.address } }, { scriptPubKey: {} }] };
    throw new Error(`unexpected ${method}`);
  };
  const rpc = {
    call: async <T>(method: string, params: unknown[] = []) => (calls++, answer(method, params) as T),
    batch: async <T>(batch: RpcCall[]) => (calls++, batch.map((c) => ({ ok: true, result: answer(c.method, c.params ?? []) as T }))),
  } as RpcCaller;
  return {
    rpc,
    fetched,
    extend,
    calls: () => calls,
    /** The hash of the active block at `height`. */
    at: (height: number) => active[height]!,
    /** Replaces the last `depth` blocks with `count` others. */
    reorg(depth: number, count: number, tag: (height: number) => string) {
      active = active.slice(0, active.length - depth);
      return extend(count, tag, 'r');
    },
  };
}

const quiet = { info() {}, warn() {}, error() {} };
// Which settings make which recogniser is the server's (server/src/modules/settings/pool-identity.ts); the tracker counts what one accepts.
const byTag: PoolRecogniser = (coinbase) => coinbase.scriptSig.includes(Buffer.from('/pool/'));
const byAddress: PoolRecogniser = (coinbase) => coinbase.addresses.includes(POOL_ADDRESS);
const unidentified: PoolRecogniser = undefined;

test('shares over the last 144 and 1,008 blocks, each block read once, new tips one block at a time', async () => {
  const chain = fakeChain();
  // Every 4th block is the pool's: 25%.
  let tip = chain.extend(2_000, (h) => (h % 4 === 0 ? 'pool' : 'other'));
  const tracker = createBlockTracker({ rpc: chain.rpc, log: quiet });
  await tracker.follow(tip);
  assert.equal(chain.fetched.length, 1_008, 'the window, once');
  const odds = tracker.odds(byTag);
  assert.equal(odds.last24h, 25);
  assert.equal(odds.last7d, 25);
  assert.equal(odds.expectedNextBlockSeconds, 2_400);
  assert.deepEqual(tracker.odds(byAddress).last7d, 25, 'by payout address too');
  assert.equal(odds.recentBlocks.length, 10);
  assert.deepEqual(odds.recentBlocks.slice(0, 4).map((b) => [b.height, b.ours]), [[1_999, false], [1_998, false], [1_997, false], [1_996, true]]);

  // The pool mines the next 144: 100% over a day, a seventh more over the week.
  tip = chain.extend(144, () => 'pool');
  for (let h = tip.height - 143; h <= tip.height; h++) await tracker.follow({ hash: `${h}`.padStart(64, 'f'), height: h });
  assert.equal(chain.fetched.length, 1_008 + 144, 'one block per new tip');
  assert.equal(tracker.odds(byTag).last24h, 100);
  assert.equal(tracker.odds(byTag).last7d, Math.round((10_000 * (144 + (1_008 - 144) / 4)) / 1_008) / 100);
  assert.equal(tracker.odds(byTag).expectedNextBlockSeconds, 600);
});

test('a reorganisation is followed by hash: only the new blocks are read, the replaced ones no longer count', async () => {
  const chain = fakeChain();
  const tip = chain.extend(300, () => 'pool');
  const tracker = createBlockTracker({ rpc: chain.rpc, log: quiet });
  await tracker.follow(tip);
  assert.equal(tracker.odds(byTag).last24h, 100);
  const before = chain.fetched.length;
  const forked = chain.reorg(3, 4, () => 'other');
  await tracker.follow(forked);
  assert.equal(chain.fetched.length - before, 4, 'the four new blocks');
  assert.equal(tracker.odds(byTag).last24h, Math.round((10_000 * 140) / 144) / 100);
  assert.equal(tracker.blocks()[0]!.hash, forked.hash);
  assert.equal(new Set(tracker.blocks().map((b) => b.height)).size, tracker.blocks().length, 'one block per height');
});

test('a young chain is judged on the blocks it has; without a recogniser the odds are unknown', async () => {
  const chain = fakeChain();
  const tip = chain.extend(103, (h) => (h < 3 ? 'other' : 'pool'));
  const tracker = createBlockTracker({ rpc: chain.rpc, log: quiet });
  await tracker.follow(tip);
  assert.equal(tracker.odds(byTag).last24h, Math.round((10_000 * 100) / 103) / 100);
  const unknown = tracker.odds(unidentified);
  assert.deepEqual([unknown.last24h, unknown.last7d, unknown.expectedNextBlockSeconds], [null, null, null]);
  assert.equal(unknown.recentBlocks.every((b) => !b.ours), true);
  assert.equal(tracker.odds(() => true).last24h, 100);
  const none = tracker.odds(() => false);
  assert.deepEqual([none.last24h, none.last7d, none.expectedNextBlockSeconds], [0, 0, null]);
});

test('odds that are unknown say why: nothing identifies the pool, or blocks still being counted', async () => {
  const chain = fakeChain();
  const tip = chain.extend(200, () => 'pool');
  const tracker = createBlockTracker({ rpc: chain.rpc, log: quiet });
  assert.equal(tracker.odds(byTag).note, ODDS_COUNTING_NOTE, 'nothing read yet');
  await tracker.follow(tip);
  const blank = tracker.odds(unidentified);
  assert.equal(blank.note, ODDS_UNIDENTIFIED_NOTE);
  assert.match(blank.note ?? '', /Pool Coinbase Tag or the Pool Payout Addresses/);
  assert.equal(tracker.odds(byTag).note, null, 'known odds need no note');
});

test('which followed block holds a txid: answered from the blocks read, with no node call; a block that leaves the window takes its txids with it', async () => {
  const chain = fakeChain();
  const tip = chain.extend(300, () => 'pool');
  const tracker = createBlockTracker({ rpc: chain.rpc, log: quiet, windowSize: 100 });
  await tracker.follow(tip);
  const calls = chain.calls();
  const old = chain.at(290);
  assert.deepEqual(tracker.holding(paymentIn(old)), { hash: old, height: 290 });
  assert.deepEqual(tracker.holding(paymentIn(old).toUpperCase()), { hash: old, height: 290 }, 'any case');
  assert.deepEqual(tracker.holding(paymentIn(chain.at(200))), { hash: chain.at(200), height: 200 }, 'the window\'s oldest block');
  assert.equal(tracker.holding(paymentIn(chain.at(199))), undefined, 'older than the window');
  assert.equal(tracker.holding(paymentIn('never mined')), undefined);
  assert.equal(tracker.holding('not a txid'), undefined);
  assert.equal(chain.calls(), calls, 'no node call');
  // Each block holds its coinbase and one payment: two keys of 8 bytes.
  assert.deepEqual(tracker.indexed(), { txids: 200, bytes: 1_600 });

  // A reorganisation: the three replaced blocks' transactions are no longer in any followed block; the new ones' are.
  const replaced = [297, 298, 299].map((h) => chain.at(h));
  const forked = chain.reorg(3, 4, () => 'other');
  await tracker.follow(forked);
  for (const hash of replaced) assert.equal(tracker.holding(paymentIn(hash)), undefined, `replaced block ${hash}`);
  assert.deepEqual(tracker.holding(paymentIn(forked.hash)), { hash: forked.hash, height: 300 });
  assert.deepEqual(tracker.holding(paymentIn(old)), { hash: old, height: 290 }, 'below the fork: still there');
});
