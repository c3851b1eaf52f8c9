import { percentile } from '../load.ts';

/**
 * How the writes of the latency run are matched to the events a change stream sent, as data:
 * each write's event is the one of its memory and kind, the writes of one memory in the order
 * they were made (an update or delete is only made of a memory whose add has been seen on the
 * stream, so no two of a memory's writes can come as one event).
 */

/** A write made through the API, and when (performance.now(), ms) it went and was answered. */
export interface SentWrite {
  readonly kind: 'add' | 'update' | 'delete';
  readonly id: string;
  /** The memory's text after an add or an update; none for a delete. */
  readonly content?: string;
  readonly sentAt: number;
  readonly answeredAt: number;
  /** A measured write, not one of the warm-up's: its latency counts in the figures. */
  readonly measured: boolean;
}

/** A `change` or `delete` event as the stream's reader received it, in the stream's order. */
export interface ReceivedEvent {
  readonly event: 'change' | 'delete';
  readonly id: string;
  readonly content?: string;
  /** performance.now() when its last byte was parsed. */
  readonly at: number;
}

export interface Matched {
  /** Answer → event, ms, of each measured write whose event came; 0 where it came first. */
  readonly latencies: readonly number[];
  /** Measured writes whose event came before their answer did. */
  readonly beforeAnswer: number;
  /** Writes (warm-up's too) whose event never came. */
  readonly lost: number;
  /**
   * Writes whose event came before the event of a write answered before they were sent: the
   * stream's order is the commit order, which such a pair cannot reverse.
   */
  readonly outOfOrder: number;
  /** Events that are no write's: more events of a memory than writes, or of the wrong kind or text. */
  readonly unexpected: number;
  /** What the first few of those were, for the failure's message. */
  readonly problems: readonly string[];
}

const PROBLEMS_SHOWN = 5;

/** The event a write should have sent. */
const expected = (write: SentWrite) => (write.kind === 'delete' ? 'delete' : 'change');

/** Matches `writes` (in the order made) to `events` (in the stream's order). */
export function matchEvents(
  writes: readonly SentWrite[],
  events: readonly ReceivedEvent[],
): Matched {
  const problems: string[] = [];
  const problem = (text: string) => {
    if (problems.length < PROBLEMS_SHOWN) problems.push(text);
  };
  /** By memory, its events' positions in the stream, in order. */
  const byId = new Map<string, number[]>();
  for (const [position, event] of events.entries()) {
    let positions = byId.get(event.id);
    if (!positions) {
      positions = [];
      byId.set(event.id, positions);
    }
    positions.push(position);
  }
  /** Each write's event's position in the stream; undefined when it never came. */
  const positionOf = new Map<SentWrite, number>();
  const seenOfId = new Map<string, number>();
  let unexpected = 0;
  let lost = 0;
  for (const write of writes) {
    const nth = seenOfId.get(write.id) ?? 0;
    seenOfId.set(write.id, nth + 1);
    const position = byId.get(write.id)?.[nth];
    const event = position === undefined ? undefined : events[position];
    if (position === undefined || event === undefined) {
      lost += 1;
      problem(`no ${expected(write)} event for the ${write.kind} of ${write.id}`);
      continue;
    }
    if (event.event !== expected(write) || event.content !== write.content) {
      unexpected += 1;
      problem(
        `the ${write.kind} of ${write.id} came as ${event.event} ${JSON.stringify(event.content ?? null)}`,
      );
      continue;
    }
    positionOf.set(write, position);
  }
  for (const [id, positions] of byId) {
    const extra = positions.length - (seenOfId.get(id) ?? 0);
    if (extra > 0) {
      unexpected += extra;
      problem(`${extra} event(s) of ${id} beyond its writes`);
    }
  }

  const latencies: number[] = [];
  let beforeAnswer = 0;
  for (const [write, position] of positionOf) {
    if (!write.measured) continue;
    const at = events[position]?.at ?? Number.NaN;
    if (at < write.answeredAt) beforeAnswer += 1;
    latencies.push(Math.max(0, at - write.answeredAt));
  }

  const outOfOrder = countOutOfOrder(writes, positionOf);
  if (outOfOrder > 0) problem(`${outOfOrder} event(s) came before one committed ahead of them`);
  return { latencies, beforeAnswer, lost, outOfOrder, unexpected, problems };
}

/**
 * The writes whose event came before that of a write answered before they were sent. The
 * writes are swept by when they were sent; those answered by then give the furthest position
 * that must come before.
 */
function countOutOfOrder(
  writes: readonly SentWrite[],
  positionOf: ReadonlyMap<SentWrite, number>,
): number {
  const received = writes.filter((write) => positionOf.has(write));
  const bySent = [...received].sort((a, b) => a.sentAt - b.sentAt);
  const byAnswer = [...received].sort((a, b) => a.answeredAt - b.answeredAt);
  let furthest = -1;
  let answered = 0;
  let count = 0;
  for (const write of bySent) {
    for (; answered < byAnswer.length; answered++) {
      const before = byAnswer[answered];
      if (before === undefined || before.answeredAt >= write.sentAt) break;
      furthest = Math.max(furthest, positionOf.get(before) ?? -1);
    }
    if ((positionOf.get(write) ?? -1) < furthest) count += 1;
  }
  return count;
}

/** The latencies' figures, ms: count, p50, p90, p99, max (nearest rank). */
export function latencyFigures(latencies: readonly number[]) {
  const sorted = Float64Array.from(latencies).sort();
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? Number.NaN : (sorted.at(-1) ?? Number.NaN),
  };
}
