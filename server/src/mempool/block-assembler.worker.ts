import { parentPort } from 'node:worker_threads';
import { createBlockAssembler } from './block-assembler.ts';
import type { ProjectionReply, ProjectionRequest } from './projection-worker.ts';
import { distinctTransferable, snapshotBuffers } from './mempool-snapshot.ts';
import { countFeeHistogram } from './fee-histogram.ts';

/**
 * Runs the block assembler off the main thread (projection-worker.ts starts
 * it). The snapshot arrives as transferred typed arrays and the projection's
 * per-transaction arrays go back the same way, with the snapshot's own
 * buffers for the next copy: neither side copies them. One assembler keeps
 * its working arrays from one projection to the next.
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
    const histogram = histogramBounds ? countFeeHistogram(snapshot, projection.functionalRate, histogramBounds) : undefined;
    const memory = process.memoryUsage();
    reply = { id, ok: true, projection, snapshot, assembleMs, workerHeapUsedBytes: memory.heapUsed, workerArrayBuffersBytes: memory.arrayBuffers, workingBytes: assembler.workingBytes, histogram };
    // The snapshot goes back too, for its buffers to be reused (cloneSnapshot's `reuse`).
    transfer = [
      ...distinctTransferable([projection.blockIndex, projection.positionVsize, projection.functionalRate, projection.order, ...(histogram ? [histogram.txCount, histogram.vsize] : [])]),
      ...snapshotBuffers(snapshot),
    ];
  } catch (error) {
    reply = { id, ok: false, message: (error as Error).message };
  }
  port.postMessage(reply, transfer);
});
