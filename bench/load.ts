import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describePlacement, placed } from './cpu-placement.ts';
import type { Sequence } from './load-sequences.ts';

/** One request of a load, as data: it is sent to the load generator's process. */
export interface LoadRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Made anew for every request sent: the sequence sets its body, and its path if it says. */
  readonly sequence?: Sequence;
}

/** One load run: what to send, where, and the status every response must have. */
export interface Load {
  /** `http://127.0.0.1:{port}` */
  readonly origin: string;
  readonly requests: readonly LoadRequest[];
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
  /** CPU seconds the load generator's process used for the run, all threads. */
  readonly loadCpuSeconds: number;
}

/** A Measurement and the response times it came from, ascending: what `combine` needs. */
export interface Sampled {
  readonly measurement: Measurement;
  readonly latencies: Float64Array;
}

/**
 * One Measurement of several. `together`: loads that ran at the same time, against servers side
 * by side (responses add up over the same seconds). `in turn`: runs of one load one after
 * another (seconds add up too). The percentiles are of every response time of every part.
 */
export function combine(parts: readonly Sampled[], how: 'together' | 'in turn'): Sampled {
  const latencies = new Float64Array(parts.reduce((n, p) => n + p.latencies.length, 0));
  let at = 0;
  for (const part of parts) {
    latencies.set(part.latencies, at);
    at += part.latencies.length;
  }
  latencies.sort();
  const measurements = parts.map((p) => p.measurement);
  const total = (of: (m: Measurement) => number) => measurements.reduce((n, m) => n + of(m), 0);
  const responses = total((m) => m.responses);
  const seconds =
    how === 'in turn'
      ? total((m) => m.seconds)
      : Math.max(0, ...measurements.map((m) => m.seconds));
  const statusCounts: Record<string, number> = {};
  for (const m of measurements) {
    for (const [status, count] of Object.entries(m.statusCounts)) {
      statusCounts[status] = (statusCounts[status] ?? 0) + count;
    }
  }
  return {
    measurement: {
      responses,
      seconds,
      requestsPerSecond: seconds > 0 ? responses / seconds : 0,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      statusCounts,
      unanswered: total((m) => m.unanswered),
      loadCpuSeconds: total((m) => m.loadCpuSeconds),
    },
    latencies,
  };
}

export class LoadFailed extends Error {
  override readonly name = 'LoadFailed';
}

/**
 * What the load generator's process answers each list of Loads with (run at the same time): a
 * Sampled of each, in order; the generator's CPU is shared among them by their responses.
 */
export type LoadReply =
  | { readonly ok: true; readonly runs: readonly Sampled[] }
  /** `loadFailed`: the service answered wrongly (LoadFailed), not the generator. */
  | { readonly ok: false; readonly loadFailed: boolean; readonly message: string };

/** What the load generator's process says once it listens for loads, before any reply. */
export const GENERATOR_READY = 'ready';

const LOAD_SCRIPT = fileURLToPath(new URL('./load-process.ts', import.meta.url));
/** Starting Node and loading autocannon, on a machine busy with other work. */
const READY_TIMEOUT_MS = 30_000;
/** Past the run's own seconds: connecting, the last responses, the percentiles and the answer. */
const REPLY_GRACE_MS = 60_000;

let generator: Promise<ChildProcess> | undefined;
/** The runs asked for, one after the other: one load at a time. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Settles with what `child` says next: `onMessage`'s value, or a rejection when it ends, cannot
 * be reached, or says nothing within `timeoutMs` (then it is killed). The timer is also what
 * keeps this process alive while it waits: the child's channel holds no reference.
 */
function nextMessage<T>(
  child: ChildProcess,
  timeoutMs: number,
  onMessage: (message: unknown) => T,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const settle = () => {
      clearTimeout(timer);
      child.off('message', onReply);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    const onReply = (message: unknown) => {
      settle();
      try {
        resolve(onMessage(message));
      } catch (error) {
        reject(error);
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      settle();
      const limit = signal === 'SIGKILL' ? `, limit ${timeoutMs / 1000} s` : '';
      reject(new Error(`load generator: its process ended (${signal ?? `code ${code}`}${limit})`));
    };
    const onError = (error: Error) => {
      settle();
      reject(new Error(`load generator: ${error.message}`, { cause: error }));
    };
    child.on('message', onReply);
    child.on('exit', onExit);
    child.on('error', onError);
  });
}

/**
 * The load generator's process, started at the first run and kept for the next ones: its code
 * stays compiled, so a warm-up warms the generator as well as the server, and a sequence counts
 * on from one run to the next (a warm-up's adds and the measured run's are distinct). It holds
 * no reference on the event loop between runs, and ends when this process does (its IPC channel
 * closes).
 */
async function loadGenerator(): Promise<ChildProcess> {
  const running = await generator?.catch(() => undefined);
  if (running?.connected) return running;
  const [command, ...args] = placed('load', [process.execPath, LOAD_SCRIPT]);
  if (command === undefined) throw new Error('empty command');
  const child = spawn(command, args, {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    // Structured clone, not JSON: a percentile of no response is NaN, not null.
    serialization: 'advanced',
  });
  child.unref();
  child.channel?.unref();
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.removeListener('exit', kill));
  // A message sent before the child listens would be lost: it says when it does.
  generator = nextMessage(child, READY_TIMEOUT_MS, (message) => {
    if (message !== GENERATOR_READY) {
      throw new Error(`load generator: said ${JSON.stringify(message)} on starting`);
    }
    return child;
  });
  return generator;
}

async function runIn(child: ChildProcess, loads: readonly Load[]): Promise<readonly Sampled[]> {
  const seconds = Math.max(0, ...loads.map((load) => load.seconds));
  const reply = nextMessage(child, seconds * 1000 + REPLY_GRACE_MS, (message) => {
    const answer = message as LoadReply;
    if (answer.ok) return answer.runs;
    throw answer.loadFailed
      ? new LoadFailed(answer.message)
      : new Error(`load generator: ${answer.message}`);
  });
  child.send(loads);
  return reply;
}

/**
 * Sends `load` with autocannon (pipelining 1), from a process of its own (load-process.ts), on
 * its own CPU where the machine has one to spare (cpu-placement.ts), and measures it. Fails
 * with LoadFailed when any response had another status than `expectStatus`, or on any socket
 * error or timeout: numbers from a run that answered errors are not numbers of the service;
 * with another error, starting `load generator:`, when the generator itself failed.
 */
export async function measure(load: Load): Promise<Measurement> {
  const [run] = await measureTogether([load]);
  if (!run) throw new Error('load generator: no answer for the load');
  return run.measurement;
}

/**
 * Sends `loads` at the same time, each with its own connections (to servers side by side), as
 * `measure` does one; answers each one's Sampled, in order. Fails as `measure` does when any
 * of them fails.
 */
export function measureTogether(loads: readonly Load[]): Promise<readonly Sampled[]> {
  const run = queue.then(async () => runIn(await loadGenerator(), loads));
  queue = run.catch(() => undefined);
  return run;
}

/** Where the load comes from, for a report's header. */
export function describeLoadGenerator(): string {
  return `autocannon in a process of its own, ${describePlacement('load')}`;
}

/** Nearest-rank percentile of ascending `sorted`. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}
