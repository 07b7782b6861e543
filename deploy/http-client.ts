import http from 'node:http';
import https from 'node:https';

/** HTTP(S) requests the way a client on another address would make them: its own source address, the proxy's certificate. */

export interface HttpOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Trusted certificate (the proxy's self-signed one). */
  ca?: string;
  /** Name the certificate is checked against, when the URL's host is an address. */
  servername?: string;
  /** Source address of the connection (127.0.0.2: a client the proxy and the portal can tell apart). */
  localAddress?: string;
  timeoutMs?: number;
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** From the request's start to the answer's last byte. */
  ms: number;
}

export function request(url: string, options: HttpOptions = {}): Promise<HttpAnswer> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = client.request(
      target,
      {
        method: options.method ?? 'GET',
        headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
        ca: options.ca,
        servername: options.servername,
        localAddress: options.localAddress,
        agent: false,
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${options.method ?? 'GET'} ${url}: no answer within ${options.timeoutMs ?? 30_000} ms`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The answer's body as JSON, or an error quoting it. */
export function json<T>(answer: HttpAnswer, what: string): T {
  try {
    return JSON.parse(answer.body) as T;
  } catch {
    throw new Error(`${what}: HTTP ${answer.status}, not JSON: ${answer.body.slice(0, 300)}`);
  }
}
