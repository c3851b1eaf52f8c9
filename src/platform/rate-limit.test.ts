/**
 * The rolling limit of docs/design.md §3, on a clock the test moves: `limit` requests pass, the next
 * is refused with a `Retry-After` that is never early, refusals cost nothing, and a burst at the
 * end of one minute does not buy a second burst at the start of the next.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createSlidingWindowLimiter, type RateDecision, rateLimitHeaders } from './rate-limit.ts';

const MINUTE = 60_000;

function limiterAt(limit: number, start: number) {
  let now = start;
  const limiter = createSlidingWindowLimiter({ limit, now: () => now });
  return {
    limiter,
    at: (ms: number) => {
      now = ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
    now: () => now,
  };
}

async function hits(limiter: { hit(key: string): Promise<RateDecision> }, key: string, n: number) {
  const decisions: RateDecision[] = [];
  for (let i = 0; i < n; i++) decisions.push(await limiter.hit(key));
  return decisions;
}

describe('sliding window', () => {
  test('a fresh key: exactly `limit` pass, counting down; the next is refused', async () => {
    const clock = limiterAt(60, 10 * MINUTE + 5_000);
    const decisions = await hits(clock.limiter, 'a', 61);
    expect(decisions.slice(0, 60).every((d) => d.allowed)).toBe(true);
    expect(decisions.slice(0, 60).map((d) => d.remaining)).toEqual(
      Array.from({ length: 60 }, (_, i) => 59 - i),
    );
    const refused = decisions[60] as RateDecision;
    expect(refused).toMatchObject({ allowed: false, limit: 60, windowSeconds: 60, remaining: 0 });
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(1);
  });

  test('keys are independent', async () => {
    const clock = limiterAt(3, 10 * MINUTE);
    await hits(clock.limiter, 'a', 3);
    expect((await clock.limiter.hit('a')).allowed).toBe(false);
    expect((await clock.limiter.hit('b')).allowed).toBe(true);
  });

  test('a burst at the end of a minute buys no burst at the start of the next', async () => {
    // A fixed window would let 60 through at 0:59.9 and 60 more at 1:00.0.
    const clock = limiterAt(60, 10 * MINUTE + 59_900);
    expect((await hits(clock.limiter, 'a', 60)).every((d) => d.allowed)).toBe(true);
    clock.at(11 * MINUTE);
    // The burst still counts in full, less the rounding to whole requests: one more passes.
    expect((await hits(clock.limiter, 'a', 10)).filter((d) => d.allowed)).toHaveLength(1);
    // Half a minute on, half of the previous minute still counts: 30 more pass, not 60.
    clock.at(11 * MINUTE + 30_000);
    expect((await hits(clock.limiter, 'a', 40)).filter((d) => d.allowed)).toHaveLength(30);
  });

  test.each([
    [60, 0],
    [60, 1],
    [60, 500],
    [60, 999],
    [7, 0],
    [7, 4321],
    [1, 0],
    [1, 59_999],
  ])('steady traffic at the pace of the limit (%i a minute, phase %i ms) is never refused', async (limit, phase) => {
    const clock = limiterAt(limit, 10 * MINUTE + phase);
    const start = clock.now();
    for (let i = 0; i < 5 * limit + 3; i++) {
      clock.at(start + Math.floor((i * MINUTE) / limit));
      expect((await clock.limiter.hit('a')).allowed, `request ${i}`).toBe(true);
    }
    // One more within the same minute is over the limit.
    expect((await clock.limiter.hit('a')).allowed).toBe(false);
  });

  test('refused requests do not count: waiting Retry-After is enough, however often refused', async () => {
    const clock = limiterAt(5, 10 * MINUTE + 20_000);
    await hits(clock.limiter, 'a', 5);
    let refused = await clock.limiter.hit('a');
    const retry = refused.resetSeconds;
    for (let i = 0; i < 50; i++) refused = await clock.limiter.hit('a');
    expect(refused.allowed).toBe(false);
    expect(refused.resetSeconds).toBe(retry);
    clock.advance(retry * 1000);
    expect((await clock.limiter.hit('a')).allowed).toBe(true);
  });

  test('peek counts nothing', async () => {
    const clock = limiterAt(2, 10 * MINUTE);
    for (let i = 0; i < 10; i++) expect((await clock.limiter.peek('a')).allowed).toBe(true);
    await hits(clock.limiter, 'a', 2);
    expect((await clock.limiter.peek('a')).allowed).toBe(false);
  });

  test('Retry-After is never early and never late by a second or more (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 10 * MINUTE }),
        // Gaps between requests, in ms: bursts and pauses across window boundaries.
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 80 }),
        async (limit, start, gaps) => {
          const clock = limiterAt(limit, 100 * MINUTE + start);
          for (const gap of gaps) {
            clock.advance(gap);
            const decision = await clock.limiter.hit('k');
            if (decision.allowed) continue;
            const refusedAt = clock.now();
            const retryMs = decision.resetSeconds * 1000;
            expect(decision.resetSeconds).toBeGreaterThanOrEqual(1);
            // One second before Retry-After (when that is after now) is still too early...
            if (retryMs > 1000) {
              clock.at(refusedAt + retryMs - 1000);
              expect((await clock.limiter.peek('k')).allowed).toBe(false);
            }
            // ...and at Retry-After the request passes.
            clock.at(refusedAt + retryMs);
            expect((await clock.limiter.peek('k')).allowed).toBe(true);
            clock.at(refusedAt);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('requests that weigh more', () => {
  test('points count as that many requests; one that does not fit is refused whole and counts nothing', async () => {
    const clock = limiterAt(10, 100 * MINUTE);
    expect(await clock.limiter.hit('k', undefined, 4)).toMatchObject({
      allowed: true,
      remaining: 6,
    });
    expect(await clock.limiter.hit('k', undefined, 6)).toMatchObject({
      allowed: true,
      remaining: 0,
    });
    expect(await clock.limiter.hit('k', undefined, 1)).toMatchObject({
      allowed: false,
      remaining: 0,
    });
    const fresh = limiterAt(10, 100 * MINUTE);
    await fresh.limiter.hit('k', undefined, 7);
    expect(await fresh.limiter.hit('k', undefined, 4)).toMatchObject({
      allowed: false,
      remaining: 3,
    });
    expect(await fresh.limiter.hit('k', undefined, 3)).toMatchObject({
      allowed: true,
      remaining: 0,
    });
  });

  test('more points than the limit can never pass: a RangeError, nothing counted', async () => {
    const clock = limiterAt(10, 100 * MINUTE);
    await expect(clock.limiter.hit('k', undefined, 11)).rejects.toThrow(RangeError);
    await expect(clock.limiter.peek('k', undefined, 0)).rejects.toThrow(RangeError);
    expect(await clock.limiter.peek('k')).toMatchObject({ allowed: true, remaining: 10 });
  });

  test('Retry-After for a request of n points is never early and never late by a second or more (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 50 })
          .chain((limit) =>
            fc.tuple(
              fc.constant(limit),
              fc.integer({ min: 0, max: 10 * MINUTE }),
              fc.array(
                fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: limit })),
                { minLength: 1, maxLength: 60 },
              ),
            ),
          ),
        async ([limit, start, requests]) => {
          const clock = limiterAt(limit, 100 * MINUTE + start);
          for (const [gap, points] of requests) {
            clock.advance(gap);
            const decision = await clock.limiter.hit('k', undefined, points);
            if (decision.allowed) continue;
            const refusedAt = clock.now();
            const retryMs = decision.resetSeconds * 1000;
            if (retryMs > 1000) {
              clock.at(refusedAt + retryMs - 1000);
              expect((await clock.limiter.peek('k', undefined, points)).allowed).toBe(false);
            }
            clock.at(refusedAt + retryMs);
            expect((await clock.limiter.peek('k', undefined, points)).allowed).toBe(true);
            clock.at(refusedAt);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('rateLimitHeaders', () => {
  const base = { limit: 60, windowSeconds: 60, remaining: 12, resetSeconds: 7 };

  test('an allowed request: the policy and the current state, no Retry-After', () => {
    expect(rateLimitHeaders('credential', { ...base, allowed: true })).toEqual({
      'ratelimit-policy': '"credential";q=60;w=60',
      ratelimit: '"credential";r=12;t=7',
    });
  });

  test('a refusal adds Retry-After in whole seconds', () => {
    expect(rateLimitHeaders('credential', { ...base, allowed: false, remaining: 0 })).toEqual({
      'ratelimit-policy': '"credential";q=60;w=60',
      ratelimit: '"credential";r=0;t=7',
      'retry-after': '7',
    });
  });
});
