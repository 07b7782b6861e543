import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleBlocks } from './block-assembler.ts';
import { cloneSnapshot, encodeMempoolSnapshot, type MempoolSnapshot } from '../mirror/mempool-snapshot.ts';
import { createProjectionWorker } from './projection-worker.ts';
import { chunkEntries } from '../../dev/chunked-mempool.ts';

const txid = (n: number) => n.toString(16).padStart(64, '0');

/** A chain-rich mempool of `count` transactions: every third spends the one before. */
function chainMempool(count: number): MempoolSnapshot {
  return encodeMempoolSnapshot(
    Array.from({ length: count }, (_, i) => ({
      txid: txid(i + 1),
      fee: 150 * (1 + ((i * 37) % 50)),
      vsize: 150 + (i % 7) * 40,
      weight: 4 * (150 + (i % 7) * 40) - (i % 4),
      depends: i % 3 === 2 ? [txid(i)] : [],
    })),
  );
}

const worker = createProjectionWorker({ assembler: { maxBlocks: 4 } });
after(() => worker.close());

test('the worker answers what the assembler answers in-process, and takes the snapshot without copying it', async () => {
  const snapshot = chainMempool(30_000);
  const kept = cloneSnapshot(snapshot);
  const expected = assembleBlocks(kept, { maxBlocks: 4 });
  const projection = await worker.project(snapshot);
  assert.ok(projection);
  assert.equal(snapshot.fee.byteLength, 0, 'the snapshot was transferred, not cloned');
  assert.deepEqual(projection.snapshot, kept, 'and handed back for its buffers to be reused');
  const recycled = cloneSnapshot(kept, projection.snapshot);
  assert.equal(recycled.txids.buffer, projection.snapshot.txids.buffer, 'the next copy went into the buffers handed back');
  assert.deepEqual(recycled, kept);
  assert.deepEqual(projection.blocks, expected.blocks);
  assert.deepEqual(projection.order, expected.order);
  assert.deepEqual(projection.entryOf, expected.entryOf);
  assert.deepEqual(projection.functionalRate, expected.functionalRate);
  assert.deepEqual(projection.positionVsize, expected.positionVsize);
  assert.deepEqual(projection.blockIndex, expected.blockIndex);
  assert.ok(projection.assembleMs > 0);
  assert.equal(projection.blocks.length, 4);
});

test('a snapshot in shared memory is read in place, and comes back as itself, still whole', async () => {
  const shared = cloneSnapshot(chainMempool(5_000), undefined, { shared: true });
  const kept = cloneSnapshot(shared);
  const projection = await worker.project(shared);
  assert.equal(projection?.snapshot, shared, 'the same object: nothing was transferred or sent back');
  assert.ok(shared.fee.buffer instanceof SharedArrayBuffer);
  assert.deepEqual(shared, kept);
  assert.deepEqual(projection.blocks, assembleBlocks(kept, { maxBlocks: 4 }).blocks);
});

/** chainMempool()'s transactions with a cluster-mempool node's chunks (dev/chunked-mempool.ts). */
function chunkedChainMempool(count: number): MempoolSnapshot {
  const plain = chainMempool(count);
  const entries = Array.from({ length: count }, (_, i) => ({
    txid: txid(i + 1),
    fee: plain.fee[i]!,
    vsize: plain.vsize[i]!,
    weight: plain.weight[i]!,
    depends: i % 3 === 2 ? [txid(i)] : [],
  }));
  return encodeMempoolSnapshot(chunkEntries(entries).entries);
}

test('chunks cross to the worker with the snapshot, transferred or shared, and it projects by them', async () => {
  const snapshot = chunkedChainMempool(20_000);
  const kept = cloneSnapshot(snapshot);
  assert.ok(kept.chunkFee && kept.chunkWeight, 'a copy keeps the chunks');
  const expected = assembleBlocks(kept, { maxBlocks: 4 });
  assert.equal(expected.ordering, 'chunks');
  const projection = await worker.project(snapshot);
  assert.ok(projection);
  assert.equal(snapshot.chunkFee!.byteLength, 0, 'the chunks were transferred, not cloned');
  assert.deepEqual(projection.snapshot, kept, 'and handed back with the rest');
  assert.equal(projection.ordering, 'chunks');
  assert.deepEqual(projection.blocks, expected.blocks);
  assert.deepEqual(projection.order, expected.order);
  assert.deepEqual(projection.functionalRate, expected.functionalRate);
  const recycled = cloneSnapshot(kept, projection.snapshot);
  assert.equal(recycled.chunkWeight!.buffer, projection.snapshot.chunkWeight!.buffer, 'the next copy went into the chunk buffers handed back');

  const shared = cloneSnapshot(kept, undefined, { shared: true });
  assert.ok(shared.chunkFee!.buffer instanceof SharedArrayBuffer);
  const fromShared = await worker.project(shared);
  assert.equal(fromShared?.ordering, 'chunks');
  assert.deepEqual(fromShared.blocks, expected.blocks);
});

test('one projection at a time: a newer snapshot supersedes the one waiting', async () => {
  const first = worker.project(chainMempool(20_000));
  const superseded = worker.project(chainMempool(100));
  const latest = worker.project(chainMempool(200));
  const [a, b, c] = await Promise.all([first, superseded, latest]);
  assert.equal(a?.projectedCount, 20_000);
  assert.equal(b, undefined);
  assert.equal(c?.projectedCount, 200);
});

test('a snapshot the assembler refuses rejects with its reason, and the worker goes on', async () => {
  const bad = chainMempool(3);
  bad.parents = new Int32Array([2, 0]);
  bad.parentStart = new Int32Array([0, 1, 1, 2]);
  await assert.rejects(worker.project(bad), /cycle/);
  assert.equal((await worker.project(chainMempool(10)))?.projectedCount, 10);
});

test('a closed worker refuses new snapshots', async () => {
  const own = createProjectionWorker();
  const pending = assert.rejects(own.project(chainMempool(50_000)), /closed/);
  await own.close();
  await pending;
  await assert.rejects(own.project(chainMempool(1)), /closed/);
});
