import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly windowSeconds: number;
  /** Requests left now. */
  readonly remaining: number;
  /** Seconds until the budget next grows; for a refusal, when to retry (>= 1). */
  readonly resetSeconds: number;
}

/** The seam for where counts live: in this process now, in Redis for several processes. */
export interface RateLimiter {
  /**
   * Counts one request for `key` — or `points`, for a request that weighs more (an import's
   * items) — unless it would exceed the limit: the limiter's own, or `limit` when this key has
   * one of its own (an app given more). `points` above the limit is a RangeError: it could never
   * pass.
   */
  hit(key: string, limit?: number, points?: number): Promise<RateDecision>;
  /** Tells whether one more request (of `points`) for `key` would be allowed, counting nothing. */
  peek(key: string, limit?: number, points?: number): Promise<RateDecision>;
}

/**
 * Atomic counters with expiry: rate-limiter-flexible's, in any store, or a wrapper over them
 * (redis-counters.ts). The limiter only uses these three, each window's count under its own key.
 */
export type Counters = Pick<RateLimiterAbstract, 'get' | 'consume' | 'reward'>;

export interface SlidingWindowOptions {
  readonly limit: number;
  readonly windowSeconds?: number;
  /** Where the counts live; by default in this process. Keys must live two windows. */
  readonly counters?: Counters | undefined;
  readonly now?: () => number;
}

/**
 * A rolling limit: the sliding-window counter. Each fixed window's requests are counted under
 * their own key (rate-limiter-flexible's atomic counters, in every store it supports); the count
 * of the rolling window (now − window, now] is this window's count plus the previous window's,
 * taken as evenly spread, for the part of it still inside, in whole requests. A client cannot
 * pass twice the limit across a window boundary as with a plain fixed window, and traffic at
 * exactly the limit's pace is never refused, whatever its phase (rounding down is what makes
 * that so; rounding up, or not rounding, refuses it once a window). A refused request is given
 * back, so refusals do not extend the wait.
 */
export function createSlidingWindowLimiter(options: SlidingWindowOptions): RateLimiter {
  const windowSeconds = options.windowSeconds ?? 60;
  const windowMs = windowSeconds * 1000;
  const now = options.now ?? Date.now;
  const counters =
    options.counters ??
    new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: 2 * windowSeconds });

  /** Where `at` falls: the keys of its fixed window and the one before, and how far into it. */
  function windowOf(key: string, at: number) {
    const index = Math.floor(at / windowMs);
    return {
      currentKey: `${key}:${index}`,
      previousKey: `${key}:${index - 1}`,
      elapsed: at - index * windowMs,
    };
  }

  /** The previous window's count and, after `current` settled, the current one's. */
  async function counts(previousKey: string, current: Promise<number>) {
    // Both at once: with Redis, two commands in one round trip instead of two in turn.
    const [previous, consumed] = await Promise.all([counters.get(previousKey), current]);
    return { previous: previous?.consumedPoints ?? 0, current: consumed };
  }

  /** The requests of the rolling window, `elapsed` ms into the current fixed window. */
  function inWindow(previous: number, current: number, elapsed: number): number {
    // The previous window's requests after (now − window): its last `window − elapsed − 1` ms.
    return Math.floor((previous * (windowMs - elapsed - 1)) / windowMs) + current;
  }

  function decide(
    limit: number,
    allowed: boolean,
    previous: number,
    current: number,
    elapsed: number,
    points: number,
  ): RateDecision {
    const remaining = Math.max(0, limit - inWindow(previous, current, elapsed));
    const waitMs =
      allowed && remaining > 0
        ? windowMs - elapsed
        : msUntilRoom(limit, previous, current, elapsed, points);
    return {
      allowed,
      limit,
      windowSeconds,
      remaining,
      resetSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
    };
  }

  /**
   * The exact wait until a request of `points` fits: the least `e` (ms into a window) with
   * `inWindow(previous, current, e) + points <= limit`, in this window or the next. The count
   * only falls as time passes, so every moment after that also lets the request through.
   */
  function msUntilRoom(
    limit: number,
    previous: number,
    current: number,
    elapsed: number,
    points: number,
  ): number {
    // floor(previous·(window − e − 1)/window) <= limit − current − points
    //   ⟺ e > window − 1 − (limit − current − points + 1)·window/previous
    const earliest = (count: number, free: number) =>
      count === 0 ? 0 : Math.max(0, Math.floor(windowMs - 1 - (free * windowMs) / count) + 1);
    if (current + points <= limit) {
      const at = earliest(previous, limit - current - points + 1);
      if (at < windowMs) return Math.max(0, at - elapsed);
    }
    // In the next window this window's count is the previous one, and nothing is current yet.
    return windowMs - elapsed + earliest(current, limit - points + 1);
  }

  function weigh(points: number, limit: number): void {
    if (!Number.isInteger(points) || points < 1 || points > limit) {
      throw new RangeError(`a request of ${points} points cannot pass a limit of ${limit}`);
    }
  }

  return {
    async hit(key, limit = options.limit, points = 1) {
      weigh(points, limit);
      const { currentKey, previousKey, elapsed } = windowOf(key, now());
      const consumed = consume(counters, currentKey, points);
      const { previous, current } = await counts(previousKey, consumed);
      if (inWindow(previous, current, elapsed) <= limit) {
        return decide(limit, true, previous, current, elapsed, points);
      }
      await counters.reward(currentKey, points);
      return decide(limit, false, previous, current - points, elapsed, points);
    },
    async peek(key, limit = options.limit, points = 1) {
      weigh(points, limit);
      const { currentKey, previousKey, elapsed } = windowOf(key, now());
      const read = counters.get(currentKey).then((result) => result?.consumedPoints ?? 0);
      const { previous, current } = await counts(previousKey, read);
      const allowed = inWindow(previous, current + points, elapsed) <= limit;
      return decide(limit, allowed, previous, current, elapsed, points);
    },
  };
}

async function consume(counters: Counters, key: string, points: number): Promise<number> {
  try {
    return (await counters.consume(key, points)).consumedPoints;
  } catch (rejection) {
    // rate-limiter-flexible rejects with its result when over its own (unreachable) cap.
    if (rejection instanceof RateLimiterRes) return rejection.consumedPoints;
    throw rejection;
  }
}

/** The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers): policy and current state. */
export function rateLimitHeaders(policy: string, decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-policy': `"${policy}";q=${decision.limit};w=${decision.windowSeconds}`,
    ratelimit: `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
  if (!decision.allowed) headers['retry-after'] = String(decision.resetSeconds);
  return headers;
}
