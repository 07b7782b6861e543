import { isUtf8 } from 'node:buffer';
import { Worker } from 'node:worker_threads';
import sjson from 'secure-json-parse';

/**
 * The JSON body parser. Small bodies are parsed in place as Fastify would.
 * Bodies of a multi-megabyte transaction take several milliseconds of UTF-8
 * decoding, parsing and poisoning checks: done on the main thread, that work
 * stalls every other request, so above a threshold it runs on a worker thread
 * and the main thread only receives the result.
 */

export interface JsonBodyParser {
  parse(body: Buffer): Promise<unknown>;
  close(): Promise<void>;
}

/** Too many large bodies waiting at once: answered 503, try again shortly. */
class ParserBusyError extends Error {
  readonly statusCode = 503;
  constructor() {
    super('The service is busy with other large transactions. Please try again shortly.');
    this.name = 'ParserBusyError';
  }
}

/** An error Fastify's error handler answers as a 400, like its own parser's. */
class InvalidJsonError extends Error {
  readonly statusCode = 400;
  constructor(message: string) {
    super(message);
    this.name = 'InvalidJsonError';
  }
}

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  message?: string;
}

/**
 * JSON is exchanged as UTF-8 (RFC 8259 section 8.1). Decoding other bytes
 * would silently turn them into U+FFFD, and text would not be stored as sent.
 */
export const NOT_UTF8_MESSAGE = 'Body is not valid JSON: it is not UTF-8 text.';

const WORKER_URL = new URL('./json-parse.worker.ts', import.meta.url);

export function createJsonBodyParser(options: { offThreadAboveBytes?: number; maxQueuedBytes?: number } = {}): JsonBodyParser {
  const threshold = options.offThreadAboveBytes ?? 512 * 1024;
  // Each waiting body is held (and copied once) in memory: bound the total.
  const maxQueuedBytes = options.maxQueuedBytes ?? 64 * 1024 * 1024;
  let queuedBytes = 0;
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; bytes: number }>();

  function settle(id: number): { resolve: (v: unknown) => void; reject: (e: Error) => void } | undefined {
    const job = pending.get(id);
    if (!job) return undefined;
    pending.delete(id);
    queuedBytes -= job.bytes;
    return job;
  }

  function failAll(error: Error): void {
    for (const id of [...pending.keys()]) settle(id)?.reject(error);
    worker = undefined;
  }

  function getWorker(): Worker {
    if (worker) return worker;
    const created = new Worker(WORKER_URL);
    created.unref(); // an idle parser must not keep the process alive
    created.on('message', (reply: Reply) => {
      const job = settle(reply.id);
      if (!job) return;
      if (reply.ok) job.resolve(reply.value);
      else job.reject(new InvalidJsonError(`Body is not valid JSON: ${reply.message ?? 'unknown error'}`));
    });
    // A crashed worker fails what it held; the next large body starts a new one.
    created.on('error', (error: Error) => failAll(error));
    created.on('exit', (code) => {
      if (worker === created) failAll(new Error(`JSON parser worker exited with code ${code}`));
    });
    worker = created;
    return created;
  }

  function parseInPlace(body: Buffer): unknown {
    if (!isUtf8(body)) throw new InvalidJsonError(NOT_UTF8_MESSAGE);
    try {
      return sjson.parse(body.toString('utf8'), undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch (error) {
      throw new InvalidJsonError(`Body is not valid JSON: ${(error as Error).message}`);
    }
  }

  return {
    async parse(body) {
      if (body.length === 0) throw new InvalidJsonError('Body cannot be empty when content-type is set to application/json');
      if (body.length <= threshold) return parseInPlace(body);
      if (queuedBytes + body.length > maxQueuedBytes) throw new ParserBusyError();
      const id = nextId++;
      const target = getWorker();
      // Copied, not transferred: Node may back a body with memory it marks
      // untransferable, and one memcpy is cheap next to the parse it saves.
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, bytes: body.length });
        queuedBytes += body.length;
        target.postMessage({ id, body });
      });
    },
    async close() {
      const current = worker;
      // Nothing waits forever on a parse that will never come.
      failAll(new Error('The server is shutting down'));
      if (current) await current.terminate();
    },
  };
}
