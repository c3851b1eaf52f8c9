// autocannon ships no types and there is no @types package we depend on: this declares the part
// of its programmatic API the benchmark uses (autocannon 8, README "API").
declare module 'autocannon' {
  export interface RequestData {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string | Buffer;
  }

  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Called before each request is sent; returns the request to send. */
    setupRequest?: (request: RequestData, context: Record<string, unknown>) => RequestData;
  }

  export interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds. */
    timeout?: number;
    requests?: Request[];
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p99: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
  }

  /** The running benchmark: an event emitter that is also a promise of its result. */
  export interface Instance extends PromiseLike<Result> {
    /** Every response, with its time from request written to response complete, in ms. */
    on(
      event: 'response',
      listener: (client: unknown, status: number, bytes: number, responseTimeMs: number) => void,
    ): this;
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
