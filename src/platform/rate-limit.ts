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
  /** Counts one request for `key` unless it would exceed the limit. */
  hit(key: string): Promise<RateDecision>;
  /** Tells whether one more request for `key` would be allowed, counting nothing. */
  peek(key: string): Promise<RateDecision>;
}

export interface SlidingWindowOptions {
  readonly limit: number;
  readonly windowSeconds?: number;
  /**
   * Atomic counters with expiry (rate-limiter-flexible, any store); the limiter only uses
   * consume/get/reward, each window's count under its own key.
   */
  readonly counters?: RateLimiterAbstract;
  readonly now?: () => number;
}

/**
 * A rolling limit: the sliding-window counter. The count of the previous fixed window is
 * weighted by how much of it still lies inside the rolling window and added to the current
 * count, so a client cannot pass twice the limit across a window boundary as with a plain fixed
 * window. Counting is rate-limiter-flexible's (atomic in every store it supports); a refused
 * request is given back, so refusals do not extend the wait.
 */
export function createSlidingWindowLimiter(options: SlidingWindowOptions): RateLimiter {
  const { limit } = options;
  const windowSeconds = options.windowSeconds ?? 60;
  const windowMs = windowSeconds * 1000;
  const now = options.now ?? Date.now;
  const counters =
    options.counters ??
    new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: 2 * windowSeconds });

  async function counts(key: string, at: number) {
    const index = Math.floor(at / windowMs);
    const previous = await counters.get(`${key}:${index - 1}`);
    return {
      currentKey: `${key}:${index}`,
      previous: previous?.consumedPoints ?? 0,
      elapsed: at - index * windowMs,
    };
  }

  function decide(
    allowed: boolean,
    previous: number,
    current: number,
    elapsed: number,
  ): RateDecision {
    const weight = (windowMs - elapsed) / windowMs;
    const estimate = previous * weight + current;
    const remaining = Math.max(0, Math.floor(limit - estimate));
    const waitMs = remaining > 0 ? windowMs - elapsed : msUntilRoom(previous, current, elapsed);
    return {
      allowed,
      limit,
      windowSeconds,
      remaining,
      resetSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
    };
  }

  /** The wait until `previous·weight + current + 1 <= limit`, in this window or the next. */
  function msUntilRoom(previous: number, current: number, elapsed: number): number {
    const leftInWindow = windowMs - elapsed;
    if (current + 1 <= limit && previous > 0) {
      const wait = leftInWindow - ((limit - current - 1) * windowMs) / previous;
      if (wait < leftInWindow) return Math.max(1, wait);
    }
    // In the next window the current count becomes the weighted one.
    const intoNext = current > limit - 1 ? windowMs - ((limit - 1) * windowMs) / current : 0;
    return leftInWindow + intoNext;
  }

  return {
    async hit(key) {
      const at = now();
      const { currentKey, previous, elapsed } = await counts(key, at);
      const consumed = await consume(counters, currentKey);
      const weight = (windowMs - elapsed) / windowMs;
      if (previous * weight + consumed <= limit) return decide(true, previous, consumed, elapsed);
      await counters.reward(currentKey, 1);
      return decide(false, previous, consumed - 1, elapsed);
    },
    async peek(key) {
      const at = now();
      const { currentKey, previous, elapsed } = await counts(key, at);
      const current = (await counters.get(currentKey))?.consumedPoints ?? 0;
      const weight = (windowMs - elapsed) / windowMs;
      return decide(previous * weight + current + 1 <= limit, previous, current, elapsed);
    },
  };
}

async function consume(counters: RateLimiterAbstract, key: string): Promise<number> {
  try {
    return (await counters.consume(key, 1)).consumedPoints;
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
