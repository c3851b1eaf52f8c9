/**
 * A limit on how many of something a key holds at once (open streams per credential), beside
 * the rate limit, which counts requests: a stream is one request that lasts.
 */
export interface ConcurrentHolds {
  readonly limit: number;
  /** Takes one of `key`'s places; undefined when all are taken. The function gives it back. */
  take(key: string): Promise<(() => void) | undefined>;
}

/**
 * Counted in this process: each process of a service allows `limit` per key. What a service
 * without Redis uses, and what a process falls back on while Redis fails (redis-counters.ts).
 */
export function createConcurrentHolds(limit: number): ConcurrentHolds & {
  /** The same as `take`, at once. */
  takeNow(key: string): (() => void) | undefined;
} {
  const held = new Map<string, number>();
  function takeNow(key: string) {
    const count = held.get(key) ?? 0;
    if (count >= limit) return undefined;
    held.set(key, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (held.get(key) ?? 1) - 1;
      if (left > 0) held.set(key, left);
      else held.delete(key);
    };
  }
  return { limit, takeNow, take: async (key) => takeNow(key) };
}
