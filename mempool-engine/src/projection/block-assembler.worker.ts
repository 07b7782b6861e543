import { parentPort } from 'node:worker_threads';
import { createBlockAssembler } from './block-assembler.ts';
import type { ProjectionReply, ProjectionRequest } from './projection-worker.ts';
import { distinctTransferable, snapshotBuffers } from '../mirror/mempool-snapshot.ts';
import { countFeeHistogram } from './fee-histogram.ts';

/**
 * Runs the block assembler off the main thread (projection-worker.ts starts
 * it). The snapshot arrives as transferred typed arrays (handed back with
 * the projection, for the next copy) or in shared memory (read in place),
 * and the projection's per-transaction arrays go back transferred: neither
 * side copies them. One assembler keeps its working arrays and its ranking
 * from one projection to the next.
 */

if (!parentPort) throw new Error('block-assembler.worker runs only as a worker thread');
const port = parentPort;
const assembler = createBlockAssembler();

port.on('message', ({ id, snapshot, options, histogramBounds }: ProjectionRequest) => {
  let reply: ProjectionReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const started = performance.now();
    const projection = assembler.assemble(snapshot, options);
    const assembleMs = performance.now() - started;
    // Here rather than on the main thread: one pass over every transaction.
    const histogram = histogramBounds ? countFeeHistogram(snapshot, projection, histogramBounds) : undefined;
    const memory = process.memoryUsage();
    // A snapshot in transferred buffers goes back, for them to be reused (cloneSnapshot's `reuse`); one in
    // shared memory (the mirror's) never left the main thread, which knows when to write into it again.
    const handedBack = snapshotBuffers(snapshot);
    reply = { id, ok: true, projection, snapshot: handedBack.length > 0 ? snapshot : undefined, assembleMs, workerHeapUsedBytes: memory.heapUsed, workerArrayBuffersBytes: memory.arrayBuffers, workingBytes: assembler.workingBytes, histogram };
    transfer = [
      ...distinctTransferable([projection.entryOf, projection.blockIndex, projection.positionVsize, projection.functionalRate, projection.order, ...(histogram ? [histogram.txCount, histogram.vsize] : [])]),
      ...handedBack,
    ];
  } catch (error) {
    reply = { id, ok: false, message: (error as Error).message };
  }
  port.postMessage(reply, transfer);
  // Off the projection's critical path: the next one starts from a tidied ranking and readied arrays.
  if (reply.ok) assembler.tidyUp();
});
