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

export class LoadFailed extends Error {
  override readonly name = 'LoadFailed';
}

/** What the load generator's process answers each Load with. */
export type LoadReply =
  | { readonly ok: true; readonly measurement: Measurement }
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

async function runIn(child: ChildProcess, load: Load): Promise<Measurement> {
  const reply = nextMessage(child, load.seconds * 1000 + REPLY_GRACE_MS, (message) => {
    const answer = message as LoadReply;
    if (answer.ok) return answer.measurement;
    throw answer.loadFailed
      ? new LoadFailed(answer.message)
      : new Error(`load generator: ${answer.message}`);
  });
  child.send(load);
  return reply;
}

/**
 * Sends `load` with autocannon (pipelining 1), from a process of its own (load-process.ts), on
 * its own CPU where the machine has one to spare (cpu-placement.ts), and measures it. Fails
 * with LoadFailed when any response had another status than `expectStatus`, or on any socket
 * error or timeout: numbers from a run that answered errors are not numbers of the service;
 * with another error, starting `load generator:`, when the generator itself failed.
 */
export function measure(load: Load): Promise<Measurement> {
  const run = queue.then(async () => runIn(await loadGenerator(), load));
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
