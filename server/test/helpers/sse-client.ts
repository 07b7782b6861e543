import { get, type IncomingMessage, type ClientRequest } from 'node:http';

/**
 * A Server-Sent Events reader for tests: the frames exactly as the server
 * wrote them (comments included, which EventSource hides), parsed per the
 * WHATWG HTML "event stream" rules the server relies on.
 */

export type SseFrame =
  | { kind: 'comment'; text: string }
  | { kind: 'event'; event: string; data: string; retry: number | undefined };

export interface SseConnection {
  response: IncomingMessage;
  /** Every frame so far, in order. */
  frames: SseFrame[];
  /** Resolves with the first frame from index `from` on that matches, waiting for it when needed. */
  waitFor(match: (frame: SseFrame) => boolean, options?: { from?: number; timeoutMs?: number }): Promise<SseFrame>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Drops the connection, as a closed browser tab does. */
  close(): void;
}

function parseFrame(block: string): SseFrame | null {
  const lines = block.split(/\r\n|\r|\n/);
  const fields = { event: 'message', data: [] as string[], retry: undefined as number | undefined };
  const comments: string[] = [];
  for (const line of lines) {
    if (line.startsWith(':')) {
      comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'event') fields.event = value;
    else if (name === 'data') fields.data.push(value);
    else if (name === 'retry') fields.retry = Number(value);
  }
  if (fields.data.length > 0) return { kind: 'event', event: fields.event, data: fields.data.join('\n'), retry: fields.retry };
  if (comments.length > 0) return { kind: 'comment', text: comments.join('\n') };
  if (fields.retry !== undefined) return { kind: 'event', event: 'retry', data: '', retry: fields.retry };
  return null;
}

/**
 * Opens an event stream; rejects when the server answers anything but 200
 * text/event-stream, with the status and body. `localAddress`: the address
 * the connection comes from (any of 127.0.0.0/8 reaches a server on
 * 127.0.0.1), so that a test can hold more streams than one address may.
 */
export function openEventStream(url: string, options: { headers?: Record<string, string>; localAddress?: string } = {}): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    let request: ClientRequest | undefined = undefined;
    const from = options.localAddress === undefined ? {} : { localAddress: options.localAddress };
    request = get(url, { headers: { accept: 'text/event-stream', ...options.headers }, ...from }, (response) => {
      if (response.statusCode !== 200) {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => reject(Object.assign(new Error(`HTTP ${response.statusCode}: ${body}`), { statusCode: response.statusCode, body })));
        return;
      }
      const frames: SseFrame[] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      let done = false;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        const blocks = buffer.split(/\r\n\r\n|\n\n|\r\r/);
        buffer = blocks.pop()!;
        for (const block of blocks) {
          const frame = parseFrame(block);
          if (frame) frames.push(frame);
        }
        for (const wake of [...waiters]) wake();
      });
      const ended = new Promise<void>((resolveEnd) => {
        const finish = () => {
          done = true;
          for (const wake of [...waiters]) wake();
          resolveEnd();
        };
        response.on('end', finish);
        response.on('close', finish);
        response.on('error', finish);
      });
      resolve({
        response,
        frames,
        ended,
        close: () => request!.destroy(),
        waitFor(match, { from = 0, timeoutMs = 5_000 } = {}) {
          return new Promise((resolveFrame, rejectFrame) => {
            const check = () => {
              const found = frames.slice(from).find(match);
              if (found) {
                cleanup();
                resolveFrame(found);
              } else if (done) {
                cleanup();
                rejectFrame(new Error(`the stream ended without the frame; got ${JSON.stringify(frames.slice(from)).slice(0, 500)}`));
              }
            };
            const timer = setTimeout(() => {
              cleanup();
              rejectFrame(new Error(`no such frame within ${timeoutMs} ms; got ${JSON.stringify(frames.slice(from)).slice(0, 500)}`));
            }, timeoutMs);
            const cleanup = () => {
              clearTimeout(timer);
              waiters.delete(check);
            };
            waiters.add(check);
            check();
          });
        },
      });
    });
    request.on('error', reject);
  });
}
