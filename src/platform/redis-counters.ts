import { randomUUID } from 'node:crypto';
import { Redis, type Result } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { type ConcurrentHolds, createConcurrentHolds } from './concurrent-holds.ts';
import type { Counters } from './rate-limit.ts';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** HOLD_TAKE: 1 when `member` took one of the key's `limit` places, else 0. */
    mnemoTakeHold(
      key: string,
      limit: number,
      leaseMs: number,
      member: string,
    ): Result<number, Context>;
    /** HOLD_RENEW: the lease of each member still held, from now. */
    mnemoRenewHolds(key: string, leaseMs: number, ...members: string[]): Result<number, Context>;
  }
}

/** What the store tells the operator; pino's logger (`app.log`) fits. */
export interface CountersLog {
  warn(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
}

export interface RedisCountersOptions {
  /** `redis://…` or `rediss://…` (TLS). */
  readonly url: string;
  /** Namespaces every key; each limiter's name follows it. Default `mnemo:rl`. */
  readonly keyPrefix?: string;
  readonly log: CountersLog;
}

export interface RedisCounters {
  /**
   * Counters under `{keyPrefix}:{name}:`, shared by every process on this Redis; while Redis
   * cannot answer, counted in this process instead. Each key lives `ttlSeconds`.
   */
  counters(name: string, ttlSeconds: number): Counters;
  /**
   * At most `limit` held at once per key, by every process on this Redis together (each hold a
   * lease of `leaseMs`, renewed while held); while Redis cannot answer, taken in this process.
   */
  holds(name: string, limit: number, options?: { readonly leaseMs?: number }): ConcurrentHolds;
  /** Closes the connection; counting goes on in the process (nothing should be left to count). */
  close(): Promise<void>;
}

export const UNAVAILABLE_MESSAGE = 'rate limits: Redis unavailable, counting in this process';
export const RESTORED_MESSAGE = 'rate limits: Redis is back, counting in Redis again';

/**
 * A hold in Redis is a lease, renewed while its process holds it: a process that dies without
 * giving its holds back (kill -9, a lost network) loses them within a minute.
 */
const HOLD_LEASE_MS = 60_000;

/**
 * Takes a place among a key's holds (a sorted set of members by lease end, in Redis's own clock
 * so that processes' clocks need not agree): the expired go first, then the count decides.
 */
const HOLD_TAKE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** Renews the leases of members still in the set (XX: a member that expired stays gone). */
const HOLD_RENEW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 0`;

/** Redis answers in well under a millisecond nearby; no request waits for it longer than this. */
const COMMAND_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 2_000;
/** While Redis fails, one request a second tries it again; the others count in the process. */
const RETRY_MS = 1_000;

/**
 * Rate-limit counters in Redis (rate-limiter-flexible's RateLimiterRedis over one ioredis
 * connection for the process), falling back to counters in the process when Redis is down,
 * unreachable, slow or answers with an error. The fallback wraps get, consume and reward alike
 * (the sliding window reads the previous window's count, which must not fail either). It is
 * logged once when it begins (warn) and once when Redis answers again (info); ioredis reconnects
 * on its own, and counting returns to Redis by itself.
 *
 * Waits for the first connection (at most 2.5 s), so that a process does not start by counting
 * alone; an unreachable Redis does not stop it from starting.
 *
 * @example
 * const shared = await connectRedisCounters({ url: 'redis://127.0.0.1:6379', log: app.log });
 * const limiter = createSlidingWindowLimiter({ limit: 60, counters: shared.counters('credential', 120) });
 */
export async function connectRedisCounters(options: RedisCountersOptions): Promise<RedisCounters> {
  const { log } = options;
  const keyPrefix = options.keyPrefix ?? 'mnemo:rl';
  const client = new Redis(options.url, {
    // rate-limiter-flexible's advice for ioredis: fail at once rather than queue while offline.
    enableOfflineQueue: false,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // A command in flight when the connection drops fails at once and is counted in the process;
    // sent again after the reconnection, it would count twice.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  });

  let closed = false;
  /** Set while Redis fails: when it may next be tried. */
  let retryAt: number | undefined;

  function failed(error: unknown) {
    if (closed) return;
    if (retryAt === undefined) {
      log.warn({ err: error }, UNAVAILABLE_MESSAGE);
    }
    retryAt = Date.now() + RETRY_MS;
  }

  function answered() {
    if (retryAt === undefined) return;
    retryAt = undefined;
    log.info({}, RESTORED_MESSAGE);
  }

  // Connection errors come again on every reconnection attempt: the first failed count says it.
  client.on('error', () => {});
  // Back after a reconnection: the next count may try Redis at once.
  client.on('ready', () => {
    if (retryAt !== undefined) retryAt = 0;
  });

  const firstConnection = await connected(client, CONNECT_TIMEOUT_MS + COMMAND_TIMEOUT_MS);
  if (firstConnection !== true) failed(firstConnection);

  /** Whether this operation should try Redis; while it fails, one a second does. */
  function tryRedis(): boolean {
    if (closed) return false;
    if (retryAt === undefined) return true;
    const now = Date.now();
    if (now < retryAt) return false;
    retryAt = now + RETRY_MS;
    return true;
  }

  function counters(name: string, ttlSeconds: number): Counters {
    const settings = { points: Number.MAX_SAFE_INTEGER, duration: ttlSeconds };
    const shared = new RateLimiterRedis({
      ...settings,
      storeClient: client,
      keyPrefix: `${keyPrefix}:${name}`,
      // Not connected (down, reconnecting, still in its ready check): refuse at once.
      rejectIfRedisNotReady: true,
    });
    const local = new RateLimiterMemory({ ...settings, keyPrefix: name });

    async function either<T>(operation: (store: Counters) => Promise<T>): Promise<T> {
      if (tryRedis()) {
        try {
          const result = await operation(shared);
          answered();
          return result;
        } catch (error) {
          // Over the store's own cap is an answer, not a failure (unreachable at this cap).
          if (error instanceof RateLimiterRes) throw error;
          failed(error);
        }
      }
      return operation(local);
    }

    return {
      get: (key, options) => either((store) => store.get(key, options)),
      consume: (key, points, options) => either((store) => store.consume(key, points, options)),
      reward: (key, points, options) => either((store) => store.reward(key, points, options)),
    };
  }

  client.defineCommand('mnemoTakeHold', { numberOfKeys: 1, lua: HOLD_TAKE });
  client.defineCommand('mnemoRenewHolds', { numberOfKeys: 1, lua: HOLD_RENEW });
  /** Each `holds`'s renewal timer, stopped at close. */
  const renewals = new Set<ReturnType<typeof setInterval>>();

  function holds(name: string, limit: number, options: { leaseMs?: number } = {}): ConcurrentHolds {
    const leaseMs = options.leaseMs ?? HOLD_LEASE_MS;
    const local = createConcurrentHolds(limit);
    /** This process's holds in Redis, by key: what it renews. */
    const held = new Map<string, Set<string>>();
    const redisKey = (key: string) => `${keyPrefix}:holds:${name}:${key}`;

    // Every lease of the process renewed three times within its length; no process is kept
    // alive by the timer.
    const renewing = setInterval(() => {
      for (const [key, members] of held) {
        client.mnemoRenewHolds(redisKey(key), leaseMs, ...members).catch(() => {
          // Not renewed (Redis down): the leases run out, and Redis gives the places back.
        });
      }
    }, leaseMs / 3);
    renewing.unref();
    renewals.add(renewing);

    return {
      limit,
      async take(key) {
        if (!tryRedis()) return local.takeNow(key);
        const member = randomUUID();
        let taken: number;
        try {
          taken = await client.mnemoTakeHold(redisKey(key), limit, leaseMs, member);
          answered();
        } catch (error) {
          failed(error);
          return local.takeNow(key);
        }
        if (taken !== 1) return undefined;
        const members = held.get(key) ?? new Set();
        held.set(key, members.add(member));
        let given = false;
        return () => {
          if (given) return;
          given = true;
          members.delete(member);
          if (members.size === 0) held.delete(key);
          // Not given back (Redis down): its lease runs out.
          if (!closed) client.zrem(redisKey(key), member).catch(() => {});
        };
      },
    };
  }

  return {
    counters,
    holds,
    async close() {
      closed = true;
      for (const renewing of renewals) clearInterval(renewing);
      client.disconnect();
    },
  };
}

/** Resolves true once ready, or with the first connection error, or with a timeout error. */
function connected(client: Redis, timeoutMs: number): Promise<true | Error> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (outcome: true | Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      resolve(outcome);
    };
    const onReady = () => done(true);
    const onError = (error: Error) => done(error);
    const timer = setTimeout(
      () => done(new Error(`no connection to Redis within ${timeoutMs} ms`)),
      timeoutMs,
    );
    client.once('ready', onReady);
    client.once('error', onError);
  });
}
