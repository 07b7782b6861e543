import { isUtf8 } from 'node:buffer';
import { parentPort } from 'node:worker_threads';
import sjson from 'secure-json-parse';

/**
 * Parses large JSON request bodies off the main thread. Same rules as
 * Fastify's own parser: prototype and constructor poisoning are refused.
 */

interface Job {
  id: number;
  body: Uint8Array;
}

if (!parentPort) throw new Error('json-parse.worker runs only as a worker thread');
const port = parentPort;

port.on('message', ({ id, body }: Job) => {
  try {
    const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    // As on the main thread (json-body-parser.ts): UTF-8 only, nothing silently replaced.
    if (!isUtf8(bytes)) throw new Error('it is not UTF-8 text.');
    const text = bytes.toString('utf8');
    const value: unknown = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    port.postMessage({ id, ok: true, value });
  } catch (error) {
    port.postMessage({ id, ok: false, message: (error as Error).message });
  }
});
