import { describe, expect, it } from 'vitest';
import { createArrivalLog, percentileOf, summarize } from './sse-arrivals.ts';

const chunk = (content: string) =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;

describe('arrivals of a streamed completion', () => {
  it('stamps each event with the read that completed it', () => {
    const log = createArrivalLog();
    // An event cut over two reads arrives with the second.
    const first = chunk('You ');
    log.feed(first.slice(0, 10), 1, 100);
    log.feed(first.slice(10) + chunk('said'), 2, 101.5);
    log.feed('data: [DONE]\n\n', 3, 104);
    expect(log.events.map((e) => [e.read, e.at])).toEqual([
      [2, 101.5],
      [2, 101.5],
      [3, 104],
    ]);

    const summary = summarize(log.events, 100.25);
    expect(summary).toEqual({
      events: 3,
      reads: 2,
      firstEventMs: 1.25,
      gapsMs: [2.5],
      text: 'You said',
      done: true,
    });
  });

  it('counts one read per event when each came alone', () => {
    const log = createArrivalLog();
    ['a', 'b', 'c'].forEach((piece, i) => {
      log.feed(chunk(piece), i + 1, 10 + 2 * i);
    });
    const summary = summarize(log.events, 9);
    expect([summary.events, summary.reads, summary.gapsMs, summary.done]).toEqual([
      3,
      3,
      [2, 2],
      false,
    ]);
  });

  it('reads events split by CRLF, and skips what is not a chunk', () => {
    const log = createArrivalLog();
    log.feed(': keep-alive\r\n\r\ndata: {"error":{"message":"x"}}\r\n\r\n', 1, 5);
    const summary = summarize(log.events, 4);
    expect([summary.events, summary.text, summary.firstEventMs]).toEqual([1, '', 1]);
  });

  it('has no first event when nothing came', () => {
    expect(summarize([], 0).firstEventMs).toBeNaN();
  });
});

describe('percentileOf', () => {
  it('takes the nearest rank, in any order', () => {
    const values = [5, 1, 4, 2, 3];
    expect(percentileOf(values, 50)).toBe(3);
    expect(percentileOf(values, 99)).toBe(5);
    expect(percentileOf(values, 1)).toBe(1);
    expect(percentileOf([], 50)).toBeNaN();
  });
});
