import autocannon, { type Request } from 'autocannon';

/** One load run: what to send, where, and the status every response must have. */
export interface Load {
  /** `http://127.0.0.1:{port}` */
  readonly origin: string;
  readonly requests: Request[];
  readonly expectStatus: number;
  readonly connections: number;
  readonly seconds: number;
}

export interface Measurement {
  readonly responses: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  /** Milliseconds, from each response's own timing (sub-millisecond resolution). */
  readonly p50: number;
  readonly p99: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  /**
   * Requests sent but not answered when the run stopped (at most one per connection): the
   * server may still carry them out, so a store can hold more changes than responses counted.
   */
  readonly unanswered: number;
}

export class LoadFailed extends Error {
  override readonly name = 'LoadFailed';
}

/**
 * Sends `load` with autocannon (pipelining 1) and measures it. Fails when any response had
 * another status than `expectStatus`, or on any socket error or timeout: numbers from a run that
 * answered errors are not numbers of the service.
 *
 * Latency percentiles are computed here from every response time, not taken from autocannon's
 * histogram, which records whole milliseconds only (a 1.9 ms p50 would read 1 ms).
 */
export async function measure(load: Load): Promise<Measurement> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const instance = autocannon({
    url: load.origin,
    connections: load.connections,
    pipelining: 1,
    duration: load.seconds,
    requests: load.requests,
  });
  instance.on('response', (_client, _status, _bytes, ms) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = ms;
  });
  const result = await instance;

  const statusCounts = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]),
  );
  const problems: string[] = [];
  const wrong = Object.entries(statusCounts).filter(([s]) => Number(s) !== load.expectStatus);
  if (wrong.length > 0) {
    problems.push(
      `responses other than ${load.expectStatus}: ${wrong.map(([s, n]) => `${n}×${s}`).join(', ')}`,
    );
  }
  if (result.non2xx > 0) problems.push(`${result.non2xx} non-2xx responses`);
  if (result.errors > 0) problems.push(`${result.errors} errors (${result.timeouts} timeouts)`);
  if (result.resets > 0) problems.push(`${result.resets} request pipeline resets`);
  if (result.requests.total === 0) problems.push('no response at all');
  if (problems.length > 0) {
    throw new LoadFailed(problems.join('; '));
  }

  const sorted = latencies.subarray(0, count).sort();
  return {
    responses: result.requests.total,
    seconds: result.duration,
    requestsPerSecond: result.requests.total / result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    statusCounts,
    unanswered: Math.max(0, result.requests.sent - result.requests.total),
  };
}

/** Nearest-rank percentile of ascending `sorted`. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}
