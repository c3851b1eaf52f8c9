/**
 * Rate limits counted in Redis (docs/design.md §5: several processes, one budget), against a real
 * Redis named by `MNEMO_TEST_REDIS_URL`. Each "process" is a store of its own with its own
 * ioredis connection. When Redis fails, each process counts alone, says so once, and comes back
 * to Redis by itself. Without the variable the suite is skipped, visibly; with it, a Redis that
 * cannot be reached fails the suite.
 */
import { randomUUID } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../app.ts';
import { buildTestApp } from '../testing/build-test-app.ts';
import { type OpenedEventStream, openEventStream } from '../testing/event-stream.ts';
import { clearOfMinuteEnd } from '../testing/rate-window.ts';
import { testRedisUrl } from '../testing/test-store.ts';
import type { ConcurrentHolds } from './concurrent-holds.ts';
import { createSlidingWindowLimiter, type RateDecision, type RateLimiter } from './rate-limit.ts';
import {
  type CountersLog,
  connectRedisCounters,
  RESTORED_MESSAGE,
  type RedisCounters,
  UNAVAILABLE_MESSAGE,
} from './redis-counters.ts';

const url = testRedisUrl();
const MINUTE = 60_000;

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

interface RecordedLog extends CountersLog {
  readonly lines: Array<{ level: 'warn' | 'info'; message: string; details: object }>;
}

function recordingLog(): RecordedLog {
  const lines: RecordedLog['lines'] = [];
  return {
    lines,
    warn: (details, message) => lines.push({ level: 'warn', message, details }),
    info: (details, message) => lines.push({ level: 'info', message, details }),
  };
}

/** One process's store: its own connection, under a key prefix of the test's own. */
async function processOn(redisUrl: string, keyPrefix: string, log = recordingLog()) {
  const store = await connectRedisCounters({ url: redisUrl, keyPrefix, log });
  closing.push(() => store.close());
  return { store, log };
}

/** A limiter over `store` on a clock the test moves (the counters' expiry runs on real time). */
function limiterOn(store: RedisCounters | undefined, limit: number, clock: { now: number }) {
  return createSlidingWindowLimiter({
    limit,
    counters: store?.counters('credential', 120),
    now: () => clock.now,
  });
}

async function hits(limiter: RateLimiter, key: string, n: number) {
  const decisions: RateDecision[] = [];
  for (let i = 0; i < n; i++) decisions.push(await limiter.hit(key));
  return decisions;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    }),
  );
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port where nothing listens: one that was just free. */
async function deadPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await closeServer(server);
  return port;
}

/** `target` with its host and port replaced (credentials and database kept). */
function via(target: string, port: number): string {
  const proxied = new URL(target);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return proxied.href;
}

/** A server that accepts connections and never answers a byte. */
async function silentServer() {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  const port = await listen(server);
  closing.push(async () => {
    for (const socket of sockets) socket.destroy();
    await closeServer(server);
  });
  return port;
}

/**
 * A TCP proxy in front of the real Redis: `cut` drops every connection and refuses new ones,
 * `stall` keeps connections open but passes nothing, `restore` drops what is left and passes
 * traffic again.
 */
async function redisProxy(target: string) {
  const upstream = new URL(target);
  let mode: 'open' | 'cut' | 'stalled' = 'open';
  const pairs = new Set<{ client: Socket; server?: Socket }>();
  const proxy = createServer((client) => {
    client.on('error', () => {});
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    const pair: { client: Socket; server?: Socket } = { client };
    pairs.add(pair);
    client.on('close', () => {
      pairs.delete(pair);
      pair.server?.destroy();
    });
    if (mode === 'stalled') return;
    const server = connect(Number(upstream.port || 6379), upstream.hostname);
    server.on('error', () => {});
    server.on('close', () => client.destroy());
    client.pipe(server).pipe(client);
    pair.server = server;
  });
  const port = await listen(proxy);
  const dropAll = () => {
    for (const pair of pairs) pair.client.destroy();
  };
  closing.push(async () => {
    dropAll();
    await closeServer(proxy);
  });
  return {
    url: via(target, port),
    cut() {
      mode = 'cut';
      dropAll();
    },
    stall() {
      mode = 'stalled';
      for (const { client, server } of pairs) {
        client.unpipe();
        server?.unpipe();
        client.pause();
        server?.pause();
      }
    },
    restore() {
      dropAll();
      mode = 'open';
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(50);
  }
}

describe.skipIf(!url)('rate limits in Redis', () => {
  const redisUrl = url ?? '';

  beforeAll(async () => {
    // A Redis that CI names but cannot reach fails here, plainly, rather than in every test.
    const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await client.connect().catch((error: Error) => {
        throw new Error(
          `MNEMO_TEST_REDIS_URL names a Redis that does not answer: ${error.message}`,
        );
      });
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });

  describe('shared by every process', () => {
    test('two processes share one budget: the 61st hit is refused, whichever takes it', async () => {
      const prefix = `mnemo-test:${randomUUID()}`;
      const [a, b] = [await processOn(redisUrl, prefix), await processOn(redisUrl, prefix)];
      const clock = { now: 10 * MINUTE + 5_000 };
      const limiters = [limiterOn(a.store, 60, clock), limiterOn(b.store, 60, clock)] as const;
      for (let i = 0; i < 60; i++) {
        const decision = await limiters[i % 2 ? 1 : 0].hit('subject');
        expect(decision, `hit ${i}`).toMatchObject({ allowed: true, remaining: 59 - i });
      }
      const refusals = [await limiters[0].hit('subject'), await limiters[1].hit('subject')];
      for (const refused of refusals) {
        expect(refused).toMatchObject({ allowed: false, limit: 60, windowSeconds: 60 });
        expect(refused.remaining).toBe(0);
      }
      // Refusals are given back in Redis too: both processes name the same wait.
      expect(refusals[1]?.resetSeconds).toBe(refusals[0]?.resetSeconds);
      // Retry-After is exact on either process: a second early is refused, on time passes.
      const retryMs = (refusals[0]?.resetSeconds ?? 0) * 1000;
      const refusedAt = clock.now;
      clock.now = refusedAt + retryMs - 1000;
      for (const limiter of limiters) expect((await limiter.peek('subject')).allowed).toBe(false);
      clock.now = refusedAt + retryMs;
      for (const limiter of limiters) expect((await limiter.peek('subject')).allowed).toBe(true);
      expect([...a.log.lines, ...b.log.lines]).toEqual([]);
    });

    test('two processes decide exactly as one in-memory limiter would, Retry-After included (property)', async () => {
      const prefix = `mnemo-test:${randomUUID()}`;
      const [a, b] = [await processOn(redisUrl, prefix), await processOn(redisUrl, prefix)];
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 12 }),
          fc.integer({ min: 0, max: 10 * MINUTE }),
          // Each request: the gap before it (ms) and the process that takes it.
          fc.array(fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.boolean()), {
            minLength: 1,
            maxLength: 50,
          }),
          async (limit, start, requests) => {
            const key = randomUUID();
            const clock = { now: 100 * MINUTE + start };
            const shared = [limiterOn(a.store, limit, clock), limiterOn(b.store, limit, clock)];
            const alone = limiterOn(undefined, limit, clock);
            for (const [gap, second] of requests) {
              clock.now += gap;
              const decision = await (second ? shared[1] : shared[0])?.hit(key);
              expect(decision).toEqual(await alone.hit(key));
            }
          },
        ),
        { numRuns: 40 },
      );
    });

    test('each limiter counts under its own name: the two limits do not share', async () => {
      const prefix = `mnemo-test:${randomUUID()}`;
      const { store } = await processOn(redisUrl, prefix);
      const clock = { now: 10 * MINUTE };
      const credential = limiterOn(store, 2, clock);
      const failedAuth = createSlidingWindowLimiter({
        limit: 2,
        counters: store.counters('failed-auth', 120),
        now: () => clock.now,
      });
      await hits(credential, 'same key', 2);
      expect((await credential.hit('same key')).allowed).toBe(false);
      expect((await failedAuth.hit('same key')).allowed).toBe(true);
      const client = new Redis(redisUrl);
      closing.push(async () => client.disconnect());
      expect((await client.keys(`${prefix}:*`)).sort()).toEqual([
        `${prefix}:credential:same key:10`,
        `${prefix}:failed-auth:same key:10`,
      ]);
    });
  });

  describe('holds (open streams) shared by every process', () => {
    /** Takes `count` places of `key`, alternating between the processes' holds. */
    async function takeMany(holds: readonly ConcurrentHolds[], key: string, count: number) {
      const taken: Array<(() => void) | undefined> = [];
      for (let i = 0; i < count; i++) taken.push(await holds[i % holds.length]?.take(key));
      return taken;
    }

    test('two processes share one limit: the 21st is refused on either; a place given back is free to both', async () => {
      const prefix = `mnemo-test:${randomUUID()}`;
      const [a, b] = [await processOn(redisUrl, prefix), await processOn(redisUrl, prefix)];
      const holds = [a.store.holds('streams', 20), b.store.holds('streams', 20)] as const;
      const taken = await takeMany(holds, 'account', 20);
      expect(taken.every((release) => typeof release === 'function')).toBe(true);
      expect(await holds[0].take('account')).toBeUndefined();
      expect(await holds[1].take('account')).toBeUndefined();
      // Another key, and the same key under another name, count apart.
      expect(await holds[0].take('another account')).toBeTypeOf('function');
      expect(await b.store.holds('other', 20).take('account')).toBeTypeOf('function');
      // Given back on one process (twice: the second changes nothing), taken on the other.
      taken[0]?.();
      taken[0]?.();
      await expect.poll(async () => (await holds[1].take('account')) !== undefined).toBe(true);
      expect(await holds[0].take('account')).toBeUndefined();
      expect([...a.log.lines, ...b.log.lines]).toEqual([]);
    });

    test('held longer than a lease, a place stays taken; a process that dies without giving its places back loses them when their leases end', async () => {
      const prefix = `mnemo-test:${randomUUID()}`;
      const [a, b] = [await processOn(redisUrl, prefix), await processOn(redisUrl, prefix)];
      const leaseMs = 600;
      const ofA = a.store.holds('streams', 2, { leaseMs });
      const ofB = b.store.holds('streams', 2, { leaseMs });
      expect(await takeMany([ofA], 'account', 2)).toEqual([
        expect.any(Function),
        expect.any(Function),
      ]);
      // Renewed while the process lives: three leases later, still held.
      await sleep(3 * leaseMs);
      expect(await ofB.take('account')).toBeUndefined();
      // The process ends as kill -9 would leave it: nothing given back, nothing renewed.
      await a.store.close();
      await expect
        .poll(async () => (await ofB.take('account')) !== undefined, { timeout: 5 * leaseMs })
        .toBe(true);
    });

    test('while Redis cannot be reached, each process holds its own limit, and says so once', async () => {
      const dead = via(redisUrl, await deadPort());
      const prefix = `mnemo-test:${randomUUID()}`;
      const [a, b] = [await processOn(dead, prefix), await processOn(dead, prefix)];
      for (const { store } of [a, b]) {
        const holds = store.holds('streams', 3);
        const taken = await takeMany([holds], 'account', 4);
        expect(taken.map((release) => typeof release)).toEqual([
          'function',
          'function',
          'function',
          'undefined',
        ]);
        taken[0]?.();
        expect(await holds.take('account')).toBeTypeOf('function');
      }
      for (const { log } of [a, b]) {
        expect(log.lines).toEqual([
          { level: 'warn', message: UNAVAILABLE_MESSAGE, details: { err: expect.any(Error) } },
        ]);
      }
    });
  });

  describe('when Redis fails', () => {
    test('nothing listens: each process limits on its own, and says so once', async () => {
      const dead = via(redisUrl, await deadPort());
      const prefix = `mnemo-test:${randomUUID()}`;
      const [a, b] = [await processOn(dead, prefix), await processOn(dead, prefix)];
      const clock = { now: 10 * MINUTE + 5_000 };
      const limiters = [limiterOn(a.store, 60, clock), limiterOn(b.store, 60, clock)];
      // Over more than two seconds: Redis is tried again (once a second) and fails again.
      const decisions: RateDecision[][] = [[], []];
      for (let i = 0; i < 200; i++) {
        for (const [n, limiter] of limiters.entries())
          decisions[n]?.push(await limiter.hit('subject'));
        await sleep(12);
      }
      for (const [n, limiter] of limiters.entries()) {
        const mine = decisions[n] ?? [];
        expect(mine.filter((d) => d.allowed)).toHaveLength(60);
        expect(mine[60]).toMatchObject({ allowed: false, remaining: 0 });
        expect(mine[60]?.resetSeconds).toBeGreaterThanOrEqual(1);
        expect((await limiter.peek('subject')).allowed).toBe(false);
      }
      for (const { log } of [a, b]) {
        expect(log.lines).toEqual([
          { level: 'warn', message: UNAVAILABLE_MESSAGE, details: { err: expect.any(Error) } },
        ]);
      }
    });

    test('a server that never answers: no request waits for it', async () => {
      const silent = via(redisUrl, await silentServer());
      let started = performance.now();
      const { store, log } = await processOn(silent, `mnemo-test:${randomUUID()}`);
      // Start-up waits for the handshake to time out (two commands, 500 ms each), no longer.
      expect(performance.now() - started).toBeLessThan(3_000);
      const limiter = limiterOn(store, 5, { now: 10 * MINUTE });
      started = performance.now();
      const decisions = await hits(limiter, 'subject', 50);
      expect(performance.now() - started).toBeLessThan(500);
      expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
      expect(log.lines.map((line) => line.level)).toEqual(['warn']);
    });

    test('Redis stalls while connected: one request waits the command timeout, the rest do not', async () => {
      const proxy = await redisProxy(redisUrl);
      const { store, log } = await processOn(proxy.url, `mnemo-test:${randomUUID()}`);
      const limiter = limiterOn(store, 5, { now: 10 * MINUTE });
      expect((await limiter.hit('subject')).allowed).toBe(true);
      proxy.stall();
      const waits: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        await limiter.hit('subject');
        waits.push(performance.now() - started);
      }
      // The first waits for the command timeout (500 ms); then Redis is tried once a second.
      expect(Math.max(...waits)).toBeLessThan(1_500);
      expect(waits.filter((ms) => ms > 100)).toHaveLength(1);
      expect(log.lines.map((line) => line.level)).toEqual(['warn']);
      proxy.restore();
    });

    test('Redis comes back: counting returns to Redis by itself, and says so once', async () => {
      const proxy = await redisProxy(redisUrl);
      const prefix = `mnemo-test:${randomUUID()}`;
      const a = await processOn(proxy.url, prefix);
      const b = await processOn(redisUrl, prefix);
      const clock = { now: 10 * MINUTE + 5_000 };
      const [limiterA, limiterB] = [limiterOn(a.store, 60, clock), limiterOn(b.store, 60, clock)];
      await hits(limiterA, 'subject', 10);
      expect((await limiterB.hit('subject')).remaining).toBe(49);

      proxy.cut();
      // A counts alone, from nothing; B goes on in Redis.
      const alone = await hits(limiterA, 'subject', 100);
      expect(alone[0]?.remaining).toBe(59);
      expect(alone.filter((d) => d.allowed)).toHaveLength(60);
      expect((await limiterB.hit('subject')).remaining).toBe(48);
      expect(a.log.lines.map((line) => line.message)).toEqual([UNAVAILABLE_MESSAGE]);

      proxy.restore();
      // peek counts nothing: it only shows when A reads Redis again.
      await until(async () => (await limiterA.peek('subject')).remaining === 60 - 12);
      expect(a.log.lines.map((line) => [line.level, line.message])).toEqual([
        ['warn', UNAVAILABLE_MESSAGE],
        ['info', RESTORED_MESSAGE],
      ]);
      // One budget again: 48 left, whichever process takes them.
      for (let i = 0; i < 48; i++) {
        expect((await (i % 2 ? limiterA : limiterB).hit('subject')).allowed, `hit ${i}`).toBe(true);
      }
      expect((await limiterA.hit('subject')).allowed).toBe(false);
      expect((await limiterB.hit('subject')).allowed).toBe(false);
      expect(b.log.lines).toEqual([]);
    });
  });

  describe('through HTTP', () => {
    test('two apps on one Redis: an account’s 21st open change stream is 429, whichever app it opens on', async () => {
      const first = await buildTestApp({ MNEMO_REDIS_URL: redisUrl });
      closing.push(first.close);
      const second = await buildApp({
        config: first.config,
        database: first.database,
        logger: false,
      });
      closing.push(() => second.close());
      const urls = [
        await first.app.listen({ host: '127.0.0.1', port: 0 }),
        await second.listen({ host: '127.0.0.1', port: 0 }),
      ];
      const orgId = await first.fixtures.org();
      const who = { token: (await first.fixtures.user(orgId)).token, orgId };
      const open: OpenedEventStream[] = [];
      for (let i = 0; i < 20; i++) open.push(await openEventStream(urls[i % 2] ?? '', who));
      closing.push(async () => {
        for (const stream of open) stream.close();
      });
      expect(open.map((stream) => stream.response.status)).toEqual(Array(20).fill(200));
      for (const url of urls) {
        const refused = await openEventStream(url, who);
        expect(refused.response.status).toBe(429);
        expect(await refused.response.json()).toEqual({
          error: 'too many open event streams: at most 20 per account; close one and retry in 5 s',
        });
      }
      // A stream closed on the first app frees a place on the second.
      open[0]?.close();
      await expect
        .poll(async () => {
          const again = await openEventStream(urls[1] ?? '', who);
          again.close();
          return again.response.status;
        })
        .toBe(200);
    });

    test('two apps on one Redis: the 61st request of a subject is 429, whichever app takes it', async () => {
      const first = await buildTestApp({
        MNEMO_RATE_LIMIT_PER_MINUTE: '60',
        MNEMO_REDIS_URL: redisUrl,
      });
      closing.push(first.close);
      // A second process: its own app and Redis connection, the same store.
      const second = await buildApp({
        config: first.config,
        database: first.database,
        logger: false,
      });
      await second.ready();
      closing.push(() => second.close());
      const orgId = await first.fixtures.org();
      const user = await first.fixtures.user(orgId);
      const get = (app: typeof second) =>
        app.inject({
          method: 'GET',
          url: '/api/v1/memory',
          headers: { authorization: `Bearer ${user.token}`, 'x-organization-id': orgId },
        });
      // The apps count on the real clock: 60 requests and the refusals within one minute.
      await clearOfMinuteEnd(10_000);
      for (let i = 0; i < 60; i++) {
        const res = await get(i % 2 ? second : first.app);
        expect(res.statusCode, `request ${i}`).toBe(200);
        expect(res.headers.ratelimit).toMatch(new RegExp(`^"credential";r=${59 - i};t=\\d+$`));
      }
      for (const app of [first.app, second]) {
        const res = await get(app);
        expect(res.statusCode).toBe(429);
        expect(res.json()).toEqual({ error: expect.stringMatching(/^rate limit exceeded/) });
        const retry = Number(res.headers['retry-after']);
        expect(Number.isInteger(retry) && retry >= 1 && retry <= 60).toBe(true);
      }
    });
  });
});
