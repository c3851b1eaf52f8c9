/**
 * PostgreSQL going away and coming back, under a real server process. A loopback TCP proxy
 * (testing/tcp-proxy.ts) stands between the process and the real server, so the tests cut or
 * stall the network without touching the server other tests share; a second connection holds
 * locks to make statements slow. What must hold: every request answers 503 with Retry-After
 * within a bound, the process stays alive, it serves again by itself once the store is back,
 * nothing acknowledged is lost and nothing that failed is half-applied.
 */
import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { type ServerProcess, startServerProcess } from '../testing/server-process.ts';
import { holdStoreLock } from '../testing/store-lock.ts';
import { startTcpProxy, type TcpProxy } from '../testing/tcp-proxy.ts';
import { createTestStore, type TestStore, testPostgresUrl } from '../testing/test-store.ts';

const BASE = '/api/v1/memory';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function adminUrl(): string {
  const url = testPostgresUrl();
  if (!url) throw new Error('MNEMO_TEST_POSTGRES_URL is not set');
  return url;
}

async function store(): Promise<TestStore> {
  const created = await createTestStore('postgres');
  cleanups.push(() => created.dispose());
  return created;
}

async function proxy(): Promise<TcpProxy> {
  const server = new URL(adminUrl());
  const started = await startTcpProxy({
    host: server.hostname,
    port: Number(server.port || 5432),
  });
  cleanups.push(() => started.close());
  return started;
}

async function serve(databaseUrl: string, env: Record<string, string> = {}) {
  const server = await startServerProcess({
    env: {
      MNEMO_DATABASE_URL: databaseUrl,
      MNEMO_SEED_DEMO: 'on',
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    },
  });
  cleanups.push(() => server.kill());
  const org = await server.waitForStderr(/demo organization: ([0-9a-f-]{36})\n/);
  const token = await server.waitForStderr(/platform credential \(24 h\):\n([\w.-]+)\n/);
  return { server, call: client(server, org[1] as string, token[1] as string) };
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  /** Milliseconds from sending to the whole answer. */
  ms: number;
}

function client(server: ServerProcess, orgId: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const started = Date.now();
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-organization-id': orgId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text === '' ? undefined : JSON.parse(text),
      ms: Date.now() - started,
    };
  };
}
type Call = ReturnType<typeof client>;

interface Item {
  id: string;
  content: string;
}
interface ListBody {
  memories: Item[];
  cursor: string;
}

function expectUnavailable(answer: Answer, what: string): void {
  const label = `${what} → ${answer.status} ${JSON.stringify(answer.body)}`;
  expect(answer.status, label).toBe(503);
  expect(answer.headers.get('retry-after'), label).toBe('2');
  expect(answer.headers.get('cache-control'), label).toBe('no-store');
  expect(answer.body, label).toEqual({ error: 'the store is unavailable; retry shortly' });
}

async function add(call: Call, content: string): Promise<Item> {
  const answer = await call('POST', BASE, { content });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return (answer.body as { memory: Item }).memory;
}

async function list(call: Call): Promise<ListBody> {
  const answer = await call('GET', BASE);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as ListBody;
}

/** Every kind of request the service answers from the store, and its readiness probe. */
function everyRequest(call: Call, existing: Item): Array<[string, Promise<Answer>]> {
  return [
    ['list', call('GET', BASE)],
    ['add', call('POST', BASE, { content: 'during the outage' })],
    ['get', call('GET', `${BASE}/${existing.id}`)],
    ['patch', call('PATCH', `${BASE}/${existing.id}`, { content: 'patched in the outage' })],
    ['delete', call('DELETE', `${BASE}/${existing.id}`)],
    ['readyz', call('GET', '/readyz')],
  ];
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs `text` on the test server (its maintenance database, or `database`). */
async function onAdmin<R extends pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
  database?: TestStore,
) {
  const admin = new pg.Client({ connectionString: database?.url ?? adminUrl() });
  await admin.connect();
  try {
    return (await admin.query<R>(text, values)).rows;
  } finally {
    await admin.end();
  }
}

/** The server process's connections to `database`, as PostgreSQL sees them. */
function backends(database: TestStore, where = 'true') {
  return onAdmin<{ pid: number; wait_event_type: string | null }>(
    `select pid, wait_event_type from pg_stat_activity
      where datname = $1 and application_name = 'mnemo' and ${where}`,
    [new URL(database.url).pathname.slice(1)],
  );
}

describe('the store unreachable', () => {
  test('cut: every request answers 503 with Retry-After at once, the process lives; back: served again, no restart, nothing lost', async () => {
    const db = await store();
    const link = await proxy();
    const { server, call } = await serve(link.through(db.url));
    const acknowledged = await Promise.all(
      Array.from({ length: 20 }, (_, i) => add(call, `before the cut ${i}`)),
    );
    const before = await list(call);

    await link.cut();
    const cutAt = Date.now();
    let slowest = 0;
    // Requests keep coming for a second: each one fails fast, none is a 500 or hangs.
    while (Date.now() - cutAt < 1000) {
      for (const [what, answer] of everyRequest(call, acknowledged[0] as Item)) {
        const got = await answer;
        expectUnavailable(got, what);
        slowest = Math.max(slowest, got.ms);
      }
    }
    expect(slowest, 'the slowest 503 during the cut, in ms').toBeLessThan(1000);
    expect((await call('GET', '/healthz')).status).toBe(200);
    expect(server.hasExited()).toBe(false);

    await link.restore();
    const restoredAt = Date.now();
    await waitFor('a 200 after the restore', async () => (await call('GET', BASE)).status === 200);
    const recovery = Date.now() - restoredAt;
    expect(recovery, 'ms from restore to the first 200').toBeLessThan(2000);
    expect((await call('GET', '/readyz')).status).toBe(200);
    expect(server.hasExited()).toBe(false);
    expect(server.stderr().match(/mnemo is serving/g)).toHaveLength(1);

    // Every acknowledged write is there, and no request of the outage left anything behind.
    expect(await list(call)).toEqual(before);
    expect(before.memories).toHaveLength(acknowledged.length);
    await add(call, 'after the cut');
  });

  test('cut: the authorization server answers 503 temporarily_unavailable, the provider and the routes beside it alike', async () => {
    const db = await store();
    const link = await proxy();
    const { server } = await serve(link.through(db.url));
    const deviceAuth = () =>
      fetch(`${server.url}/oauth/device/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'client_id=mnemo-cli&scope=openid',
        signal: AbortSignal.timeout(20_000),
      });
    // The provider is built (from the store's keys) before the cut.
    expect((await deviceAuth()).status).toBe(200);

    await link.cut();
    for (const [what, answer] of [
      ['device authorization (the provider)', await deviceAuth()],
      ['jwks', await fetch(`${server.url}/oauth/jwks`)],
    ] as const) {
      expect(answer.status, what).toBe(503);
      expect(answer.headers.get('retry-after'), what).toBe('2');
      expect(answer.headers.get('cache-control'), what).toBe('no-store');
      expect(await answer.json(), what).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'the store is unavailable; retry shortly',
      });
    }
    expect(server.hasExited()).toBe(false);

    await link.restore();
    await waitFor(
      'device authorization after the restore',
      async () => (await deviceAuth()).status === 200,
    );
  });

  test('stall: a network that drops packets answers 503 within the timeouts, /readyz within 1 s; back: served again', async () => {
    const db = await store();
    const link = await proxy();
    // Short enough to bound the answers below; long enough that the server's own start-up
    // (migrations, the demo seed) does not run into it on a loaded machine.
    const { server, call } = await serve(link.through(db.url), {
      MNEMO_DATABASE_STATEMENT_TIMEOUT_MS: '1000',
    });
    const existing = await add(call, 'before the stall');
    // Warm the pool: some requests find a pooled connection, some must open one.
    await Promise.all(Array.from({ length: 4 }, () => list(call)));

    link.stall();
    const answers = await Promise.all(
      everyRequest(call, existing).map(async ([what, answer]) => [what, await answer] as const),
    );
    for (const [what, answer] of answers) {
      expectUnavailable(answer, what);
      // A pooled connection: the statement timeout + 1 s; a new one: the 5 s connect timeout.
      expect(answer.ms, `${what} took ${answer.ms} ms`).toBeLessThan(7000);
    }
    const probe = await call('GET', '/readyz');
    expectUnavailable(probe, 'readyz');
    // Its bound is 1 s (measured 1.00 s); a probe waiting for a new connection would take the
    // 5 s connect timeout. Slack for a loaded machine.
    expect(probe.ms).toBeLessThan(2500);
    expect(server.hasExited()).toBe(false);

    await link.restore();
    const restoredAt = Date.now();
    await waitFor('a 200 after the restore', async () => (await call('GET', BASE)).status === 200);
    expect(Date.now() - restoredAt, 'ms from restore to the first 200').toBeLessThan(7000);
    await waitFor('/readyz 200', async () => (await call('GET', '/readyz')).status === 200);
    expect((await list(call)).memories).toEqual([existing]);
  });

  test('idle connections terminated by the server: a warning, the process lives, the next request is served', async () => {
    const db = await store();
    const { server, call } = await serve(db.url);
    await Promise.all(Array.from({ length: 4 }, () => list(call)));
    const idle = await backends(db);
    expect(idle.length).toBeGreaterThan(0);

    await onAdmin('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [
      idle.map((b) => b.pid),
    ]);
    // One warning per terminated connection: until the last, a dead one may still be pooled.
    await server.waitForStdout(
      new RegExp(
        `(?:an idle database connection failed; the pool replaces it[\\s\\S]*?){${idle.length}}`,
      ),
    );
    expect(server.hasExited()).toBe(false);
    expect((await call('GET', BASE)).status).toBe(200);
    expect((await call('GET', '/readyz')).status).toBe(200);
  });

  test('cut mid-transaction: 503, and nothing of the write is applied', async () => {
    const db = await store();
    const link = await proxy();
    const { call } = await serve(link.through(db.url));
    await add(call, 'kept');
    const before = await list(call);

    // The add locks the scope, reads, bumps the scope's version, then waits to insert.
    const lock = await holdStoreLock(db, 'memories');
    const pending = call('POST', BASE, { content: 'cut mid-transaction' });
    await waitFor('the add waiting inside its transaction', async () => {
      return (await backends(db, "wait_event_type = 'Lock'")).length === 1;
    });
    await link.cut();
    const cutAt = Date.now();
    const answer = await pending;
    expectUnavailable(answer, 'add');
    expect(
      Date.now() - cutAt,
      'the 503 follows the cut, not the 5 s statement timeout',
    ).toBeLessThan(1000);
    // Released, the orphaned backend inserts, then finds its client gone: it rolls back.
    await lock.release();
    await waitFor('the orphaned backend gone', async () => (await backends(db)).length === 0);
    const content = await onAdmin<{ n: number }>(
      "select count(*)::int as n from memories where content = 'cut mid-transaction'",
      [],
      db,
    );
    expect(content).toEqual([{ n: 0 }]);

    await link.restore();
    await waitFor('a 200 after the restore', async () => (await call('GET', BASE)).status === 200);
    expect(await list(call)).toEqual(before);
    expect((await call('POST', BASE, { content: 'cut mid-transaction' })).status).toBe(201);
  });
});

describe('the store slow', () => {
  test('authentication reads the store too: when that read times out, 503, not 401 or 500', async () => {
    const db = await store();
    const { call } = await serve(db.url, { MNEMO_DATABASE_STATEMENT_TIMEOUT_MS: '300' });
    await list(call);
    const lock = await holdStoreLock(db, 'memberships', { blockReads: true });
    try {
      const answer = await call('GET', BASE);
      expectUnavailable(answer, 'list');
      expect(answer.ms).toBeLessThan(2000);
    } finally {
      await lock.release();
    }
    expect((await call('GET', BASE)).status).toBe(200);
  });
});

describe('SIGTERM on PostgreSQL', () => {
  test('a write waiting on the store at the signal gets its real answer; then the pool closes and the process exits 0', async () => {
    const db = await store();
    const { server, call } = await serve(db.url);
    await list(call);
    const lock = await holdStoreLock(db, 'memories');
    const pending = call('POST', BASE, { content: 'in flight at SIGTERM' });
    await waitFor('the add waiting on the lock', async () => {
      return (await backends(db, "wait_event_type = 'Lock'")).length === 1;
    });

    process.kill(server.pid, 'SIGTERM');
    await waitFor('new connections refused', async () => {
      try {
        await fetch(`${server.url}/healthz`);
        return false;
      } catch {
        return true;
      }
    });
    // Still draining: the request holds the process, and the process its pool.
    expect(server.hasExited()).toBe(false);
    expect((await backends(db)).length).toBeGreaterThan(0);

    await lock.release();
    const answer = await pending;
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.headers.get('connection')).toBe('close');
    expect((answer.body as { memory: Item }).memory.content).toBe('in flight at SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    await waitFor('the pool closed', async () => (await backends(db)).length === 0, 3000);
    const stored = await onAdmin<{ n: number }>(
      "select count(*)::int as n from memories where content = 'in flight at SIGTERM'",
      [],
      db,
    );
    expect(stored).toEqual([{ n: 1 }]);
  });
});
