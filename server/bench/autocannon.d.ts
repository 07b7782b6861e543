/**
 * The part of autocannon 9's programmatic API the load benchmark uses
 * (README "API"); the package ships no types of its own.
 */
declare module 'autocannon' {
  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Returns the request to send (a falsy value restarts the request list). */
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest | undefined;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }

  export interface AutocannonClient {
    /** Replaces this connection's own request list (the options' list is shared by every connection). */
    setRequests(requests: AutocannonRequest[]): void;
  }

  export interface AutocannonOptions {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Requests in all; takes precedence over duration. */
    amount?: number;
    /** Seconds without an answer before a request counts as a timeout. */
    timeout?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    requests?: AutocannonRequest[];
    setupClient?: (client: AutocannonClient) => void;
  }

  /** hdr-histogram-percentiles-obj: latency in milliseconds, requests and throughput per second. */
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p2_5: number;
    p50: number;
    p75: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9: number;
  }

  export interface AutocannonResult {
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    /** Seconds. */
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  export default function autocannon(options: AutocannonOptions): Promise<AutocannonResult> & { stop(): void };
}
