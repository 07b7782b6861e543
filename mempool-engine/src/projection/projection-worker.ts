import { Worker } from 'node:worker_threads';
import type { BlockAssemblerOptions, BlockProjection } from './block-assembler.ts';
import type { FeeHistogramCounts } from './fee-histogram.ts';
import { snapshotBuffers, type MempoolSnapshot } from '../mirror/mempool-snapshot.ts';

/**
 * Projected blocks computed on a worker thread, so that the API's event loop
 * never waits on the block assembler (tens of milliseconds for an update of
 * a large mempool, a few hundred to rank one from scratch).
 *
 * - One projection runs at a time. A snapshot given while one runs waits;
 *   a newer snapshot supersedes a waiting one, whose promise then resolves
 *   `undefined` (its answer would be stale before it was computed).
 * - Snapshots are transferred, not copied: after project(snapshot) the
 *   snapshot's arrays are detached on this thread (keep a cloneSnapshot()
 *   if you need them). The projection's arrays come back the same way, with
 *   the snapshot itself, whose buffers can take the next cloneSnapshot().
 *   A snapshot in shared memory (the mirror's) is read where it is: it must
 *   not change until its projection resolves, and comes back as itself.
 * - A worker that crashes fails what it held; the next call starts a new one.
 */

export interface TimedProjection extends BlockProjection {
  /** The assembler's own time on the worker thread. */
  assembleMs: number;
  /** The worker's V8 heap and array-buffer memory after the projection. */
  workerHeapUsedBytes: number;
  workerArrayBuffersBytes: number;
  /** Of which the assembler's working arrays, kept between projections. */
  workingBytes: number;
  /** The snapshot projected, handed back: its buffers can take the next copy (cloneSnapshot's `reuse`). */
  snapshot: MempoolSnapshot;
  /** The mempool's fee-rate histogram, when the worker was given bucket bounds (fee-histogram.ts). */
  histogram: FeeHistogramCounts | undefined;
}

export interface ProjectionWorker {
  /** Resolves with the projection of `snapshot`, or `undefined` when a newer snapshot superseded it before it started. */
  project(snapshot: MempoolSnapshot): Promise<TimedProjection | undefined>;
  /** Stops the worker; pending projections reject. */
  close(): Promise<void>;
}

/** Worker protocol, shared with block-assembler.worker.ts. */
export interface ProjectionRequest {
  id: number;
  snapshot: MempoolSnapshot;
  options: BlockAssemblerOptions;
  /** Lower bounds (sat/vB, ascending) of the histogram buckets to count, if any. */
  histogramBounds: readonly number[] | undefined;
}

export type ProjectionReply =
  | ({ id: number; ok: true; projection: BlockProjection; snapshot: MempoolSnapshot | undefined } & Omit<TimedProjection, keyof BlockProjection | 'snapshot'>)
  | { id: number; ok: false; message: string };

interface Job {
  id: number;
  snapshot: MempoolSnapshot;
  resolve: (projection: TimedProjection | undefined) => void;
  reject: (error: Error) => void;
}

const WORKER_URL = new URL('./block-assembler.worker.ts', import.meta.url);

export function createProjectionWorker(options: { assembler?: BlockAssemblerOptions; histogramBounds?: readonly number[] } = {}): ProjectionWorker {
  const assemblerOptions = options.assembler ?? {};
  const histogramBounds = options.histogramBounds;
  let worker: Worker | undefined;
  let running: Job | undefined;
  let waiting: Job | undefined;
  let nextId = 0;
  let closed = false;

  function failAll(error: Error): void {
    const jobs = [running, waiting];
    running = undefined;
    waiting = undefined;
    for (const job of jobs) job?.reject(error);
  }

  function getWorker(): Worker {
    if (worker) return worker;
    const created = new Worker(WORKER_URL);
    created.on('message', (reply: ProjectionReply) => {
      const job = running;
      if (!job || job.id !== reply.id) return;
      running = undefined;
      if (reply.ok) {
        const { projection, snapshot, assembleMs, workerHeapUsedBytes, workerArrayBuffersBytes, workingBytes, histogram } = reply;
        // A snapshot in shared memory is not sent back: it is the one this thread sent.
        job.resolve({ ...projection, snapshot: snapshot ?? job.snapshot, assembleMs, workerHeapUsedBytes, workerArrayBuffersBytes, workingBytes, histogram });
      } else {
        job.reject(new Error(`Block projection failed: ${reply.message}`));
      }
      startNext();
    });
    created.on('error', (error: Error) => {
      if (worker === created) worker = undefined;
      failAll(error);
    });
    created.on('exit', (code) => {
      if (worker !== created) return;
      worker = undefined;
      failAll(new Error(`Block projection worker exited with code ${code}`));
    });
    worker = created;
    return created;
  }

  function startNext(): void {
    const job = waiting;
    waiting = undefined;
    if (!job) {
      // An idle worker must not keep the process alive; a busy one must, or an awaited projection could be cut short.
      worker?.unref();
      return;
    }
    running = job;
    const target = getWorker();
    target.ref();
    const request: ProjectionRequest = { id: job.id, snapshot: job.snapshot, options: assemblerOptions, histogramBounds };
    try {
      target.postMessage(request, snapshotBuffers(job.snapshot));
    } catch (error) {
      running = undefined;
      job.reject(error as Error);
      startNext();
    }
  }

  return {
    project(snapshot) {
      if (closed) return Promise.reject(new Error('The projection worker is closed'));
      return new Promise((resolve, reject) => {
        waiting?.resolve(undefined);
        waiting = { id: nextId++, snapshot, resolve, reject };
        if (!running) startNext();
      });
    },
    async close() {
      closed = true;
      const current = worker;
      worker = undefined;
      failAll(new Error('The projection worker is closed'));
      if (current) await current.terminate();
    },
  };
}
