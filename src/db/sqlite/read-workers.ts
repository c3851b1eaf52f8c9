/**
 * Reads of a SQLite store run in worker threads, off the event loop: node:sqlite is
 * synchronous, so a read that takes 30 ms on the loop holds every other request for 30 ms. Each
 * worker has its own read-only connection to the file (read-worker.ts).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  type ReadMessage,
  type ReadReply,
  type ReadWorkerData,
  receivedError,
} from './read-worker.ts';

/** Why a read got no answer from a worker; every reason is the store's, a 503 (availability.ts). */
export type ReadFailure = 'exited' | 'timed-out' | 'queue-full' | 'closed';

/**
 * A read the workers did not answer: its worker ended, it took too long, too many reads were
 * waiting, or the workers were closed. The store could not answer in time, as a PostgreSQL
 * statement cancelled by its timeout: db/availability.ts counts it as the store unavailable.
 */
export class ReadWorkerUnavailable extends Error {
  override readonly name = 'ReadWorkerUnavailable';
  readonly reason: ReadFailure;
  constructor(reason: ReadFailure, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

export interface ReadWorkersOptions {
  /** The SQLite file the workers read; the writer has opened it (WAL mode). */
  readonly file: string;
  /** The module each worker runs: it calls `serveReads` (read-worker.ts). */
  readonly module: URL;
  /** Workers at most, started as reads come. Default: `defaultReadWorkers()`. */
  readonly size?: number;
  /** Reads waiting for a worker at most; a read past them fails at once. Default 64. */
  readonly queueLimit?: number;
  /**
   * The longest a read may take, its wait for a worker included, before it fails; a worker
   * still running it then is ended and another started. Default 10 s: past busy_timeout (5 s),
   * the longest a SQLite read waits for a lock.
   */
  readonly deadlineMs?: number;
}

export interface ReadWorkers<I, O> {
  /**
   * Runs `input` on a worker and settles with its answer, or its error (the worker's own, with
   * its `code`), or a ReadWorkerUnavailable. A read whose `signal` aborts before a worker takes
   * it is not run; one aborted while running settles at once, and its answer is dropped.
   */
  run(input: I, signal?: AbortSignal): Promise<O>;
  /**
   * Ends every worker once it has answered what it runs (each closes its connection), and fails
   * the reads still waiting. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * One worker per CPU but the event loop's own, one or two: a search is CPU work, and workers past
 * the CPUs would take the loop's time. `availableParallelism` counts the CPUs this process may
 * run on (its affinity), not the machine's.
 */
export function defaultReadWorkers(): number {
  return Math.min(2, Math.max(1, availableParallelism() - 1));
}

const DEFAULT_QUEUE_LIMIT = 64;
const DEFAULT_DEADLINE_MS = 10_000;
/** How long a closing worker may take to finish its read before it is ended. */
const CLOSE_GRACE_MS = 5_000;

interface Job {
  readonly id: number;
  readonly input: unknown;
  /** Answers the caller; once only (an aborted read's answer comes later, and is dropped). */
  settle(outcome: { ok: true; value: unknown } | { ok: false; error: unknown }): void;
  /** The deadline's timer: it outlives an abort, to free a worker that never answers. */
  readonly timer: NodeJS.Timeout;
}

interface Slot {
  readonly worker: Worker;
  job: Job | undefined;
  /** Resolves once the thread has ended. */
  readonly ended: Promise<void>;
  /** What the thread threw, when it ended on an error. */
  thrown: unknown;
}

/**
 * A small pool of read workers on `options.file`, each started when a read finds none free and
 * fewer than `size` running, with a bounded queue in front. A worker that ends (it threw, ran
 * out of memory, was ended past a deadline) fails its read and is replaced by the next read.
 *
 * @example
 * const reads = createReadWorkers<SearchInput, FoundMemory[]>({
 *   file, module: new URL('./memory-search.worker.ts', import.meta.url),
 * });
 * const found = await reads.run({ scopeId, query, options }, request.signal);
 * await reads.close();
 */
export function createReadWorkers<I, O>(options: ReadWorkersOptions): ReadWorkers<I, O> {
  const size = options.size ?? defaultReadWorkers();
  const queueLimit = options.queueLimit ?? DEFAULT_QUEUE_LIMIT;
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  /** The workers that take reads. */
  const slots: Slot[] = [];
  /** Every thread not yet ended: those in `slots`, and those ended past a deadline. */
  const threads = new Set<Slot>();
  const queue: Job[] = [];
  let nextId = 0;
  let closing: Promise<void> | undefined;

  function start(): Slot {
    const workerData: ReadWorkerData = { file: options.file };
    const worker = new Worker(options.module, { workerData });
    // An idle worker does not keep the process alive; a read waiting on one has its timer.
    worker.unref();
    let ended = () => {};
    const slot: Slot = {
      worker,
      job: undefined,
      ended: new Promise<void>((resolve) => {
        ended = resolve;
      }),
      thrown: undefined,
    };
    worker.on('message', (reply: ReadReply) => {
      const job = slot.job;
      if (job?.id !== reply.id) return;
      slot.job = undefined;
      clearTimeout(job.timer);
      job.settle(reply.ok ? reply : { ok: false, error: receivedError(reply.error) });
      dispatch();
    });
    worker.on('error', (error) => {
      slot.thrown = error;
    });
    worker.on('exit', (code) => {
      ended();
      threads.delete(slot);
      retire(slot);
      if (slot.job) clearTimeout(slot.job.timer);
      slot.job?.settle({
        ok: false,
        error: new ReadWorkerUnavailable(
          'exited',
          `the read worker ended (exit code ${code}) before it answered`,
          { cause: slot.thrown },
        ),
      });
      slot.job = undefined;
      dispatch();
    });
    slots.push(slot);
    threads.add(slot);
    return slot;
  }

  function retire(slot: Slot): void {
    const at = slots.indexOf(slot);
    if (at !== -1) slots.splice(at, 1);
  }

  function dispatch(): void {
    while (queue.length > 0 && !closing) {
      const slot =
        slots.find((s) => s.job === undefined) ?? (slots.length < size ? start() : undefined);
      if (!slot) return;
      const job = queue.shift() as Job;
      try {
        slot.worker.postMessage({ id: job.id, input: job.input } satisfies ReadMessage);
        slot.job = job;
      } catch (error) {
        // An input that cannot be cloned: the read's own failure, not the worker's.
        clearTimeout(job.timer);
        job.settle({ ok: false, error });
      }
    }
  }

  /** A worker past its read's deadline is ended, and the next read starts another. */
  function overdue(job: Job): void {
    const at = queue.indexOf(job);
    if (at !== -1) queue.splice(at, 1);
    const slot = slots.find((s) => s.job === job);
    if (slot) {
      slot.job = undefined;
      retire(slot);
      void slot.worker.terminate();
    }
    job.settle({
      ok: false,
      error: new ReadWorkerUnavailable('timed-out', `the read took longer than ${deadlineMs} ms`),
    });
    dispatch();
  }

  return {
    run(input, signal) {
      if (closing) {
        return Promise.reject(new ReadWorkerUnavailable('closed', 'the read workers are closed'));
      }
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (queue.length >= queueLimit) {
        return Promise.reject(
          new ReadWorkerUnavailable('queue-full', `${queue.length} reads wait for a worker`),
        );
      }
      return new Promise<O>((resolve, reject) => {
        let settled = false;
        const onAbort = () => {
          const at = queue.indexOf(job);
          if (at !== -1) {
            queue.splice(at, 1);
            clearTimeout(job.timer);
          }
          job.settle({ ok: false, error: signal?.reason });
        };
        const job: Job = {
          id: nextId++,
          input,
          timer: setTimeout(() => overdue(job), deadlineMs),
          settle(outcome) {
            if (settled) return;
            settled = true;
            signal?.removeEventListener('abort', onAbort);
            if (outcome.ok) resolve(outcome.value as O);
            else reject(outcome.error);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(job);
        dispatch();
      });
    },
    close() {
      closing ??= (async () => {
        for (const job of queue.splice(0)) {
          clearTimeout(job.timer);
          job.settle({
            ok: false,
            error: new ReadWorkerUnavailable('closed', 'the read workers are closed'),
          });
        }
        for (const slot of slots) slot.worker.postMessage('close' satisfies ReadMessage);
        await Promise.all(
          [...threads].map(async (slot) => {
            const late = setTimeout(() => void slot.worker.terminate(), CLOSE_GRACE_MS);
            await slot.ended;
            clearTimeout(late);
          }),
        );
      })();
      return closing;
    },
  };
}
