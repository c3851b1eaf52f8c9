import { createParser } from 'eventsource-parser';
import { percentile } from '../load.ts';

/**
 * When each server-sent event of a streamed chat completion reached the client, and in which
 * socket read: a gateway that forwards chunks one for one delivers them in as many reads as
 * the upstream sent them; one that batches them delivers several per read.
 */

/** One event, stamped with the read that completed it. */
export interface Arrival {
  /** Counts the reads of one response from 1. */
  readonly read: number;
  /** `performance.now()` when that read came in. */
  readonly at: number;
  readonly data: string;
}

export interface ArrivalLog {
  /** Text of the body as one socket read brought it (the client's `data` events of that read). */
  feed(text: string, read: number, at: number): void;
  readonly events: readonly Arrival[];
}

export function createArrivalLog(): ArrivalLog {
  const events: Arrival[] = [];
  let read = 0;
  let at = 0;
  const parser = createParser({ onEvent: (event) => events.push({ read, at, data: event.data }) });
  return {
    feed(text, readNumber, readAt) {
      read = readNumber;
      at = readAt;
      parser.feed(text);
    },
    events,
  };
}

/** One streamed response, as the client saw it. */
export interface StreamSummary {
  /** Events, `[DONE]` included. */
  readonly events: number;
  /** Reads that completed at least one event. */
  readonly reads: number;
  /** From sending the request to the read that completed the first event. */
  readonly firstEventMs: number;
  /** Between consecutive reads that completed events. */
  readonly gapsMs: readonly number[];
  /** The content deltas joined: what the stream said. */
  readonly text: string;
  /** Whether it ended with `data: [DONE]`. */
  readonly done: boolean;
}

function contentOf(data: string): string {
  try {
    const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: unknown } }> };
    const content = chunk.choices?.[0]?.delta?.content;
    return typeof content === 'string' ? content : '';
  } catch {
    return '';
  }
}

export function summarize(events: readonly Arrival[], sentAt: number): StreamSummary {
  const readTimes: number[] = [];
  let lastRead = 0;
  for (const event of events) {
    if (event.read !== lastRead) readTimes.push(event.at);
    lastRead = event.read;
  }
  return {
    events: events.length,
    reads: readTimes.length,
    firstEventMs: events.length > 0 ? (events[0]?.at ?? Number.NaN) - sentAt : Number.NaN,
    gapsMs: readTimes.slice(1).map((at, i) => at - (readTimes[i] ?? at)),
    text: events.map((event) => contentOf(event.data)).join(''),
    done: events.at(-1)?.data === '[DONE]',
  };
}

/** Nearest-rank percentile of `values`, in any order. */
export const percentileOf = (values: readonly number[], p: number) =>
  percentile(Float64Array.from(values).sort(), p);
