import {
  firstChunkOf,
  type GatewayResults,
  loadOf,
  memoryReadOf,
  pacingOf,
  RECALL_MEMORIES,
  type TargetName,
} from './results.ts';

/**
 * The gateway's targets: what mnemo may add to a call to the upstream itself (`direct`), its
 * throughput against Portkey's gateway, and what memory recall adds to a call through mnemo,
 * every figure measured in the same run.
 */

export type GatewayVerdict = 'pass' | 'miss' | 'unjudged';

export interface GatewayJudgement {
  readonly target: GatewayTarget;
  /** The figure judged; undefined when a run it needs failed. */
  readonly value: number | undefined;
  /** The figure with what it was computed from, for the table. */
  readonly figure: string;
  readonly verdict: GatewayVerdict;
}

export interface GatewayTarget {
  readonly name: string;
  readonly bound: string;
  judge(results: GatewayResults): Omit<GatewayJudgement, 'target'>;
}

/**
 * A forwarded stream may arrive in a few reads fewer than the direct one before it counts as
 * batched: on a busy machine the client itself may be late for a 2 ms gap now and then, which
 * the direct stream shows too.
 */
export const READS_TOLERANCE = 0.95;

const ms = (value: number) => `${value.toFixed(2)} ms`;

function verdictOf(value: number | undefined, met: (value: number) => boolean): GatewayVerdict {
  if (value === undefined || !Number.isFinite(value)) return 'unjudged';
  return met(value) ? 'pass' : 'miss';
}

/** mnemo's `quantile` at one connection, less direct's. */
function addedLatency(quantile: 'p50' | 'p99', max: number): GatewayTarget {
  return {
    name: `added ${quantile}, 1 connection (mnemo − direct)`,
    bound: `≤ ${ms(max)}`,
    judge(results) {
      const mnemo = loadOf(results, 'mnemo', 1);
      const direct = loadOf(results, 'direct', 1);
      const value = mnemo && direct ? mnemo[quantile] - direct[quantile] : undefined;
      return {
        value,
        figure:
          value === undefined || !mnemo || !direct
            ? '–'
            : `${ms(value)} (${mnemo[quantile].toFixed(2)} − ${direct[quantile].toFixed(2)})`,
        verdict: verdictOf(value, (v) => v <= max),
      };
    },
  };
}

const addedFirstChunk = (max: number): GatewayTarget => ({
  name: 'added time to first chunk, p50 (mnemo − direct)',
  bound: `≤ ${ms(max)}`,
  judge(results) {
    const mnemo = firstChunkOf(results, 'mnemo');
    const direct = firstChunkOf(results, 'direct');
    const value = mnemo && direct ? mnemo.p50 - direct.p50 : undefined;
    return {
      value,
      figure:
        value === undefined || !mnemo || !direct
          ? '–'
          : `${ms(value)} (${mnemo.p50.toFixed(2)} − ${direct.p50.toFixed(2)})`,
      verdict: verdictOf(value, (v) => v <= max),
    };
  },
});

/**
 * With pauses between the upstream's chunks, mnemo's stream carries as many events as the
 * direct one, in (nearly) as many reads: each chunk passed on as it came, none held back to go
 * out with the next. The value judged: mnemo's reads per response over direct's, 0 when the
 * events differ.
 */
const oneForOne: GatewayTarget = {
  name: 'chunks forwarded one for one (2 ms apart upstream)',
  bound: `same events, reads ≥ ${READS_TOLERANCE.toFixed(2)}× direct`,
  judge(results) {
    const mnemo = pacingOf(results, 'mnemo');
    const direct = pacingOf(results, 'direct');
    if (!mnemo || !direct) return { value: undefined, figure: '–', verdict: 'unjudged' };
    const sameEvents = mnemo.eventsPerRequest === direct.eventsPerRequest;
    const value = sameEvents ? mnemo.readsPerRequest / direct.readsPerRequest : 0;
    const shown = (p: typeof mnemo) =>
      `${p.eventsPerRequest} events in ${p.readsPerRequest.toFixed(1)} reads`;
    return {
      value,
      figure: `mnemo ${shown(mnemo)}; direct ${shown(direct)}`,
      verdict: verdictOf(value, (v) => v >= READS_TOLERANCE),
    };
  },
};

function throughputRatio(
  subject: TargetName,
  base: TargetName,
  connections: number,
  min: number,
): GatewayTarget {
  return {
    name: `${subject} ÷ ${base} req/s, ${connections} connections`,
    bound: `≥ ${min.toFixed(2)}×`,
    judge(results) {
      const s = loadOf(results, subject, connections);
      const b = loadOf(results, base, connections);
      const value = s && b ? s.requestsPerSecond / b.requestsPerSecond : undefined;
      return {
        value,
        figure:
          value === undefined || !s || !b
            ? '–'
            : `${value.toFixed(2)}× (${Math.round(s.requestsPerSecond)} ÷ ${Math.round(b.requestsPerSecond)})`,
        verdict: verdictOf(value, (v) => v >= min),
      };
    },
  };
}

/** mnemo's p50 with `x-mnemo-memory: read`, less the same calls' without it. */
const memoryReadAdded = (max: number): GatewayTarget => ({
  name: `memory read on ${RECALL_MEMORIES.toLocaleString('en-US')} memories, added p50 (read − without)`,
  bound: `≤ ${ms(max)}`,
  judge(results) {
    const run = memoryReadOf(results);
    if (!run) return { value: undefined, figure: '–', verdict: 'unjudged' };
    const read = run.read.measured.p50;
    const without = run.without.measured.p50;
    const value = read - without;
    return {
      value,
      figure: `${ms(value)} (${read.toFixed(2)} − ${without.toFixed(2)})`,
      verdict: verdictOf(value, (v) => v <= max),
    };
  },
});

export const GATEWAY_TARGETS: readonly GatewayTarget[] = [
  addedLatency('p50', 0.5),
  addedLatency('p99', 1.5),
  addedFirstChunk(1),
  oneForOne,
  throughputRatio('mnemo', 'portkey', 16, 3),
  memoryReadAdded(1),
];

export function judgeGateway(results: GatewayResults): GatewayJudgement[] {
  return GATEWAY_TARGETS.map((target) => ({ target, ...target.judge(results) }));
}
