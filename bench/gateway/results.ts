import type { Measurement } from '../load.ts';

/**
 * What the gateway bench measures: three ways to the same simulator, each under the same
 * loads, in the same run.
 */

/** `direct`: the simulator itself; `mnemo` and `portkey`: a gateway in front of it. */
export const TARGETS = ['direct', 'mnemo', 'portkey'] as const;
export type TargetName = (typeof TARGETS)[number];

/** Closed-loop connections of the non-streaming loads: one request at a time, then 16. */
export const CONNECTIONS = [1, 16] as const;

/**
 * mnemo with memory recall: a key whose owner has this many memories, its calls at one
 * connection with `x-mnemo-memory: read` and without it (bench/gateway/memory-read.ts).
 */
export const RECALL_MEMORIES = 1_000;

/**
 * What those calls ask, in turn: questions a chat user of that store (bench/search/corpus.ts)
 * might type. Like most typed questions, none has every word in one memory (`which`, `is`), so
 * recall takes search's fallback, any word ranked by BM25, and keeps the best 30 of hundreds.
 */
export const MEMORY_QUESTIONS = [
  'Which team does Anna Novak report to?',
  'Which cluster runs the ledger service?',
  'Who do I pair with on deployments?',
  'Is the user allergic to peanuts?',
] as const;

export type Result<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

export const messageOf = (error: unknown) =>
  error instanceof Error ? error.message : String(error);

/** What `work` resolved to, or why it threw: a run that fails is a result, not the end. */
export async function attempt<T>(work: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, message: messageOf(error) };
  }
}

/** CPU used during a measured run, in cores: 1 is one core busy all the time. */
export interface LoadCpu {
  /** The gateway's process (mnemo's or Portkey's); undefined for `direct`, or unreadable. */
  readonly gateway: number | undefined;
  readonly simulator: number | undefined;
  /** The load generator's process: autocannon. */
  readonly loadGenerator: number;
  /** Every process of the machine; undefined without /proc/stat. */
  readonly machine: number | undefined;
  readonly steal: number | undefined;
}

/** One measured load run and the CPU used during it. */
export interface MeasuredRun {
  readonly measured: Measurement;
  readonly cpu: LoadCpu;
}

export interface LoadRun {
  readonly target: TargetName;
  readonly connections: number;
  readonly result: Result<MeasuredRun>;
}

/** mnemo's calls with `x-mnemo-memory: read` and the same calls without, back to back. */
export interface MemoryRead {
  /** Memories in the key owner's store. */
  readonly memories: number;
  /**
   * Each question; the memories of the store that hold every word of it, or failing that any
   * (search's rule, counted over the seeded texts); how many a call with it recalled.
   */
  readonly questions: ReadonlyArray<{
    readonly question: string;
    readonly matches: number;
    readonly recalled: number;
  }>;
  /** Without the header: the key's own setting, memory off. */
  readonly without: MeasuredRun;
  readonly read: MeasuredRun;
}

/** Sequential streamed requests to the simulator without pauses between chunks. */
export interface FirstChunk {
  readonly requests: number;
  /** From sending the request to the first `data:` event, ms. */
  readonly p50: number;
  readonly p99: number;
}

/** Sequential streamed requests to the simulator that pauses between chunks. */
export interface Pacing {
  readonly requests: number;
  /** Events of each response, `[DONE]` included: the same for every response, or it fails. */
  readonly eventsPerRequest: number;
  /** Socket reads that brought events, per response, on average. */
  readonly readsPerRequest: number;
  /** Between consecutive reads that brought events, ms, over every response. */
  readonly gapP50: number;
  readonly gapP99: number;
}

export interface GatewayResults {
  readonly load: readonly LoadRun[];
  readonly firstChunk: ReadonlyArray<{ target: TargetName; result: Result<FirstChunk> }>;
  readonly pacing: ReadonlyArray<{ target: TargetName; result: Result<Pacing> }>;
  readonly memoryRead: Result<MemoryRead>;
  /** Processes that did not stop cleanly. */
  readonly problems: readonly string[];
}

export function loadOf(
  results: GatewayResults,
  target: TargetName,
  connections: number,
): Measurement | undefined {
  const run = results.load.find((r) => r.target === target && r.connections === connections);
  return run?.result.ok ? run.result.value.measured : undefined;
}

export function firstChunkOf(results: GatewayResults, target: TargetName): FirstChunk | undefined {
  const found = results.firstChunk.find((r) => r.target === target)?.result;
  return found?.ok ? found.value : undefined;
}

export function memoryReadOf(results: GatewayResults): MemoryRead | undefined {
  return results.memoryRead.ok ? results.memoryRead.value : undefined;
}

export function pacingOf(results: GatewayResults, target: TargetName): Pacing | undefined {
  const found = results.pacing.find((r) => r.target === target)?.result;
  return found?.ok ? found.value : undefined;
}
