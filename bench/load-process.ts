/**
 * The load generator's process, started by measure() (load.ts) with an IPC channel: says
 * `GENERATOR_READY`, then runs each list of Loads it is sent with autocannon, all at once, and
 * answers a LoadReply.
 * Apart from the bench's process so that its CPU can be pinned and read apart from everything
 * else; it ends when its parent does.
 *
 * Latency percentiles are computed here from every response time, not taken from autocannon's
 * histogram, which records whole milliseconds only (a 1.9 ms p50 would read 1 ms).
 */
import autocannon, { type Request } from 'autocannon';
import {
  GENERATOR_READY,
  type Load,
  LoadFailed,
  type LoadReply,
  type LoadRequest,
  percentile,
  type Sampled,
} from './load.ts';
import { makeRequest } from './load-sequences.ts';

/**
 * How many requests each sequence made so far, by the sequence: it counts on across the runs
 * of this process, so a warm-up and the measured run after it never send the same add.
 */
const made = new Map<string, number>();

function toAutocannon({ sequence, headers, ...request }: LoadRequest): Request {
  const plain = { ...request, ...(headers && { headers: { ...headers } }) };
  if (!sequence) return plain;
  const key = JSON.stringify(sequence);
  return {
    ...plain,
    // One count for the load, whichever connection sends the request.
    setupRequest: (data) => {
      const n = made.get(key) ?? 0;
      made.set(key, n + 1);
      return { ...data, ...makeRequest(sequence, n, data.path) };
    },
  };
}

/** One load; its `loadCpuSeconds` is left 0 for `runAll` to fill in. */
async function run(load: Load): Promise<Sampled> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const instance = autocannon({
    url: load.origin,
    connections: load.connections,
    pipelining: 1,
    duration: load.seconds,
    requests: load.requests.map(toAutocannon),
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

  // A copy of just the responses' times: the reply carries it, not the whole grown buffer.
  const sorted = latencies.slice(0, count).sort();
  return {
    measurement: {
      responses: result.requests.total,
      seconds: result.duration,
      requestsPerSecond: result.requests.total / result.duration,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      statusCounts,
      unanswered: Math.max(0, result.requests.sent - result.requests.total),
      loadCpuSeconds: 0,
    },
    latencies: sorted,
  };
}

/**
 * Runs `loads` at the same time. This process's CPU meanwhile is all of theirs: each is given
 * the share of it that its responses are of all the responses.
 */
async function runAll(loads: readonly Load[]): Promise<Sampled[]> {
  const cpuBefore = process.cpuUsage();
  // Every load to its end before answering, a failed one too: the next list must not start
  // while connections of this one still send.
  const settled = await Promise.allSettled(loads.map(run));
  const cpu = process.cpuUsage(cpuBefore);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  const runs = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const seconds = (cpu.user + cpu.system) / 1e6;
  const responses = runs.reduce((n, r) => n + r.measurement.responses, 0);
  return runs.map(({ measurement, latencies }) => ({
    measurement: {
      ...measurement,
      loadCpuSeconds:
        responses > 0 ? (seconds * measurement.responses) / responses : seconds / runs.length,
    },
    latencies,
  }));
}

function reply(answer: LoadReply): void {
  process.send?.(answer);
}

if (import.meta.main) {
  if (!process.send) throw new Error('load-process.ts runs as a child of measure(), with IPC');
  process.on('message', (loads: readonly Load[]) => {
    runAll(loads).then(
      (runs) => reply({ ok: true, runs }),
      (error: unknown) =>
        reply({
          ok: false,
          loadFailed: error instanceof LoadFailed,
          message: error instanceof Error ? error.message : String(error),
        }),
    );
  });
  // Its parent ended, however: nothing more will be asked.
  process.once('disconnect', () => process.exit(0));
  process.send(GENERATOR_READY);
}
