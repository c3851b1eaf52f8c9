import { describe, expect, it } from 'vitest';
import { latencyFigures, matchEvents, type ReceivedEvent, type SentWrite } from './latency.ts';

const add = (id: string, sentAt: number, answeredAt: number, measured = true): SentWrite => ({
  kind: 'add',
  id,
  content: `text of ${id}`,
  sentAt,
  answeredAt,
  measured,
});
const change = (id: string, at: number, content = `text of ${id}`): ReceivedEvent => ({
  event: 'change',
  id,
  content,
  at,
});

describe('matchEvents', () => {
  it("times each measured write from its answer to its memory's event of its kind", () => {
    const writes: SentWrite[] = [
      add('a', 0, 5, false),
      add('b', 20, 24),
      { kind: 'update', id: 'a', content: 'revised', sentAt: 40, answeredAt: 43, measured: true },
      { kind: 'delete', id: 'b', sentAt: 60, answeredAt: 62, measured: true },
    ];
    const events: ReceivedEvent[] = [
      change('a', 9),
      change('b', 30),
      change('a', 45, 'revised'),
      { event: 'delete', id: 'b', at: 70 },
    ];
    const matched = matchEvents(writes, events);
    expect(matched).toEqual({
      latencies: [6, 2, 8],
      beforeAnswer: 0,
      lost: 0,
      outOfOrder: 0,
      unexpected: 0,
      problems: [],
    });
  });

  it('counts an event that came before its answer as 0 ms', () => {
    const matched = matchEvents([add('a', 0, 10)], [change('a', 8)]);
    expect(matched.latencies).toEqual([0]);
    expect(matched.beforeAnswer).toBe(1);
  });

  it('counts a write whose event never came as lost, warm-up or not', () => {
    const matched = matchEvents([add('a', 0, 5, false), add('b', 20, 25)], [change('a', 7)]);
    expect(matched.lost).toBe(1);
    expect(matched.latencies).toEqual([]);
    expect(matched.problems).toEqual(['no change event for the add of b']);
  });

  it('counts events of the wrong kind or text, and events beyond the writes', () => {
    const writes: SentWrite[] = [
      add('a', 0, 5),
      { kind: 'delete', id: 'a', sentAt: 10, answeredAt: 12, measured: true },
      add('b', 20, 25),
    ];
    const events: ReceivedEvent[] = [
      change('a', 7),
      change('a', 14),
      change('b', 27, 'another text'),
      change('c', 30),
    ];
    const matched = matchEvents(writes, events);
    expect(matched.unexpected).toBe(3);
    expect(matched.lost).toBe(0);
    expect(matched.latencies).toEqual([2]);
  });

  it('finds an event that came before one of a write answered before it was sent', () => {
    // b was sent after a's answer: a committed first, so its event must come first.
    const writes = [add('a', 0, 5), add('b', 6, 9)];
    const reversed = matchEvents(writes, [change('b', 10), change('a', 11)]);
    expect(reversed.outOfOrder).toBe(1);
    expect(reversed.problems).toEqual(['1 event(s) came before one committed ahead of them']);
    // Sent while a was in flight, b may commit first: either order is right.
    const overlapping = [add('a', 0, 5), add('b', 2, 9)];
    expect(matchEvents(overlapping, [change('b', 10), change('a', 11)]).outOfOrder).toBe(0);
  });
});

describe('latencyFigures', () => {
  it('gives the count and the nearest-rank percentiles', () => {
    const latencies = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(latencyFigures(latencies)).toEqual({ count: 100, p50: 50, p90: 90, p99: 99, max: 100 });
  });

  it('gives NaN figures of no latency', () => {
    const none = latencyFigures([]);
    expect(none.count).toBe(0);
    expect(none.p50).toBeNaN();
    expect(none.max).toBeNaN();
  });
});
