/**
 * Several processes behind a load balancer behave as one service (docs/design.md §5): two real server
 * processes on one PostgreSQL database and one Redis. Writers and syncing clients reach both in
 * turn; incremental pulls never miss a change whichever process wrote it, identical adds racing
 * through both fold to one memory, racing PATCHes leave one of the two contents with strictly
 * increasing `updatedAt`, a search finds at once what either process wrote (and never what it
 * deleted), the scope's change counter loses no update, a change of account state is refused
 * by the very next request on both, and the per-subject rate limit is one budget across both.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDatabase, type Database } from '../db/database.ts';
import { updateOrganization } from '../tenancy/orgs.repository.ts';
import { createFixtures, type Fixtures, testConfig } from '../testing/build-test-app.ts';
import {
  createWorld,
  httpTransport,
  programArb,
  runProgram,
  type Send,
  type Who,
} from '../testing/memory-sync-model.ts';
import { clearOfMinuteEnd } from '../testing/rate-window.ts';
import { createExactnessWorld, livesArb, runLives } from '../testing/search-exactness.ts';
import { type ServerProcess, startServerProcess } from '../testing/server-process.ts';
import { createTestStore, type TestStore, testRedisUrl } from '../testing/test-store.ts';
import type { MemoryItem } from './memory.schemas.ts';

/** Both processes are one service: one public URL, so one issuer and audience. */
const PUBLIC_URL = 'http://mnemo.test';

const redisUrl = testRedisUrl();

/** Two processes on one store; the store is migrated by whichever starts first. */
async function startPair(store: TestStore, env: Record<string, string>) {
  const common = {
    MNEMO_DATABASE_URL: store.url,
    MNEMO_PUBLIC_URL: PUBLIC_URL,
    MNEMO_REDIS_URL: redisUrl ?? '',
    MNEMO_SEED_DEMO: 'off',
    MNEMO_LOG_LEVEL: 'warn',
    ...env,
  };
  // Started at once: their migrations and first-key generation race, as in a rolling deploy.
  return Promise.all([startServerProcess({ env: common }), startServerProcess({ env: common })]);
}

/** A load balancer in the client: each request goes to the next process in turn. */
function roundRobin(servers: readonly ServerProcess[]): Send {
  const transports = servers.map((server) => httpTransport(server.url));
  let next = 0;
  return (who, method, url, payload) => {
    const send = transports[next++ % transports.length] as Send;
    return send(who, method, url, payload);
  };
}

describe.skipIf(!redisUrl)('two processes, one PostgreSQL, one Redis', () => {
  let store: TestStore;
  let database: Database;
  let fixtures: Fixtures;
  /** Rate limit high enough for the programs: every request still counts in Redis. */
  let pair: ServerProcess[] = [];
  /** The spec's 60 a minute. */
  let limited: ServerProcess[] = [];

  beforeAll(async () => {
    store = await createTestStore('postgres');
    pair = await startPair(store, { MNEMO_RATE_LIMIT_PER_MINUTE: '1000000' });
    limited = await startPair(store, { MNEMO_RATE_LIMIT_PER_MINUTE: '60' });
    database = createDatabase(store.url);
    fixtures = createFixtures(
      database,
      testConfig({ MNEMO_DATABASE_URL: store.url, MNEMO_PUBLIC_URL: PUBLIC_URL }),
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all([...pair, ...limited].map((server) => server.stop()));
    await database?.close();
    await store?.dispose();
  });

  const at = (server: ServerProcess) => httpTransport(server.url);
  const both = () => pair as [ServerProcess, ServerProcess];

  test.each([
    'user',
    'project',
  ] as const)('%s store: writers and syncing clients through both processes; every mirror ends equal to the full list', async (kind) => {
    const send = roundRobin(both());
    await fc.assert(
      fc.asyncProperty(programArb, async (program) => {
        await runProgram(await createWorld(fixtures, kind, send), send, program);
      }),
      { numRuns: 30 },
    );
  }, 180_000);

  test.each([
    'user',
    'project',
  ] as const)('%s store: a search through either process finds what the other acknowledged, and not what it deleted', async (kind) => {
    const send = roundRobin(both());
    await fc.assert(
      fc.asyncProperty(livesArb, async (lives) => {
        await runLives(await createExactnessWorld(fixtures, kind), send, lives);
      }),
      { numRuns: 20 },
    );
  }, 120_000);

  test('identical adds split across both processes fold to one memory', async () => {
    const [a, b] = both();
    const spellings = ['Likes hiking', 'likes hiking.', '  LIKES   hiking!', 'ｌｉｋｅｓ hiking'];
    for (let round = 0; round < 10; round++) {
      const orgId = await fixtures.org();
      const owner = await fixtures.user(orgId);
      const other = await fixtures.user(orgId);
      const projectId = await fixtures.project(orgId, {
        [owner.id]: 'editor',
        [other.id]: 'editor',
      });
      // The store exists already: a first write into a new store is serialized by the insert
      // of its counter row, which would hide a missing lock.
      const extra = round % 2 === 0 ? { project: projectId } : {};
      const first = await at(a)({ token: owner.token, orgId }, 'POST', '/api/v1/memory', {
        content: 'Lives in Lyon',
        ...extra,
      });
      expect(first.status).toBe(201);
      const adds = Array.from({ length: 16 }, (_, i) => {
        const who: Who = { token: (i % 4 < 2 ? owner : other).token, orgId };
        const body = {
          content: spellings[i % spellings.length] as string,
          // Half into one user's store (both credentials act for the owner), half into the pool.
          ...(round % 2 === 0 ? { project: projectId } : i % 4 < 2 ? {} : { user: owner.id }),
        };
        return at(i % 2 === 0 ? a : b)(who, 'POST', '/api/v1/memory', body);
      });
      const answers = await Promise.all(adds);
      const created = answers.filter((x) => x.status === 201);
      expect(created, JSON.stringify(answers)).toHaveLength(1);
      const id = (created[0]?.body as { memory: MemoryItem }).memory.id;
      for (const answer of answers.filter((x) => x.status !== 201)) {
        expect(answer.status).toBe(200);
        expect((answer.body as { memory: { id: string } }).memory.id).toBe(id);
      }
      const listQuery = round % 2 === 0 ? `?project=${projectId}` : '';
      const list = await at(b)({ token: owner.token, orgId }, 'GET', `/api/v1/memory${listQuery}`);
      const firstId = (first.body as { memory: MemoryItem }).memory.id;
      expect((list.body as { memories: MemoryItem[] }).memories.map((m) => m.id)).toEqual([
        firstId,
        id,
      ]);
    }
  }, 60_000);

  test('racing PATCHes through both processes: one content wins, updatedAt strictly increases', async () => {
    const [a, b] = both();
    const orgId = await fixtures.org();
    const user = await fixtures.user(orgId);
    const who: Who = { token: user.token, orgId };
    const created = await at(a)(who, 'POST', '/api/v1/memory', { content: 'version 0' });
    const memory = (created.body as { memory: MemoryItem }).memory;
    let previous = memory.updatedAt;
    for (let round = 1; round <= 20; round++) {
      const contents = [`version ${round}a`, `version ${round}b`];
      const answers = await Promise.all(
        contents.map((content, i) =>
          at(i === 0 ? a : b)(who, 'PATCH', `/api/v1/memory/${memory.id}`, { content }),
        ),
      );
      const items = answers.map((x) => {
        expect(x.status, JSON.stringify(x.body)).toBe(200);
        return (x.body as { memory: MemoryItem }).memory;
      });
      const [first, second] = items as [MemoryItem, MemoryItem];
      // Both committed, one after the other: two distinct instants, both after the last round.
      expect(first.updatedAt).not.toBe(second.updatedAt);
      expect(first.updatedAt > previous && second.updatedAt > previous).toBe(true);
      const last = first.updatedAt > second.updatedAt ? first : second;
      const stored = await at(round % 2 ? b : a)(who, 'GET', `/api/v1/memory/${memory.id}`);
      expect((stored.body as { memory: MemoryItem }).memory).toEqual(last);
      expect(contents).toContain(last.content);
      previous = last.updatedAt;
    }
  }, 60_000);

  test('the change counter loses no update: every write through either process has its own', async () => {
    const orgId = await fixtures.org();
    const user = await fixtures.user(orgId);
    const who: Who = { token: user.token, orgId };
    const send = roundRobin(both());
    const start = await send(who, 'GET', '/api/v1/memory');
    const cursor = (start.body as { cursor: string }).cursor;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        send(who, 'POST', '/api/v1/memory', { content: `fact ${i}` }),
      ),
    );
    expect(answers.map((x) => x.status)).toEqual(answers.map(() => 201));
    const ids = answers.map((x) => (x.body as { memory: MemoryItem }).memory.id);
    const pulled = await send(who, 'GET', `/api/v1/memory?since=${encodeURIComponent(cursor)}`);
    const changed = (pulled.body as { memories: MemoryItem[] }).memories.map((m) => m.id);
    expect(changed.sort()).toEqual([...ids].sort());

    // 40 writes, 40 counter values, each memory one of them.
    const scope = await database.db
      .selectFrom('scopes')
      .select(['id', 'version'])
      .where('org_id', '=', orgId)
      .where('owner_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(scope.version).toBe(40);
    const versions = await database.db
      .selectFrom('memories')
      .select('version')
      .where('scope_id', '=', scope.id)
      .orderBy('version')
      .execute();
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  }, 60_000);

  test('a change of account state, through either process or in the store by the CLI, refuses the very next request on both', async () => {
    const [a, b] = both();
    const orgId = await fixtures.org();
    const owner = await fixtures.user(orgId, 'owner');
    const alice = await fixtures.user(orgId);
    const who: Who = { token: alice.token, orgId };
    const added = await at(a)(who, 'POST', '/api/v1/memory', { content: 'Prefers green tea' });
    expect(added.status).toBe(201);
    const { id } = (added.body as { memory: { id: string } }).memory;
    // GET one and the list read the caller with what they answer, in one statement; an add
    // reads the caller alone. Each is sent to both processes after every change.
    let adds = 0;
    const requests = () =>
      [
        ['GET', `/api/v1/memory/${id}`],
        ['GET', '/api/v1/memory'],
        ['POST', '/api/v1/memory', { content: `Another fact ${adds++}` }],
      ] as const;
    const answers = async () => {
      const seen: Array<{ status: number; error?: unknown }> = [];
      for (const server of [a, b]) {
        for (const [method, path, payload] of requests()) {
          const { status, body } = await at(server)(who, method, path, payload);
          seen.push(
            status < 300 ? { status } : { status, error: (body as { error: unknown }).error },
          );
        }
      }
      return seen;
    };
    const everywhere = (answer: { status: number; error?: string }) =>
      [200, 200, 201, 200, 200, 201].map((ok) => (answer.status < 300 ? { status: ok } : answer));
    // Both processes have served the caller (credential, caller, memory all warm).
    expect(await answers()).toEqual(everywhere({ status: 200 }));

    // Suspended in the store, as `mnemo admin user set --status` does, outside both processes.
    await fixtures.status(alice.id, 'suspended');
    expect(await answers()).toEqual(everywhere({ status: 403, error: 'account is suspended' }));
    await fixtures.status(alice.id, 'active');
    expect(await answers()).toEqual(everywhere({ status: 200 }));

    // Memory switched off for the organization, as `mnemo admin org set --memory off` does.
    await updateOrganization(database.db, orgId, { memoryEnabled: false });
    expect(await answers()).toEqual(
      everywhere({ status: 404, error: 'memory is not enabled for this organization' }),
    );
    await updateOrganization(database.db, orgId, { memoryEnabled: true });
    expect(await answers()).toEqual(everywhere({ status: 200 }));

    // Removed by an owner through one process: the other refuses the next request too.
    const removed = await at(b)(
      { token: owner.token, orgId },
      'DELETE',
      `/api/v1/orgs/${orgId}/members/${alice.id}`,
    );
    expect(removed).toEqual({ status: 200, body: { ok: true } });
    expect(await answers()).toEqual(
      everywhere({ status: 403, error: 'not a member of this organization' }),
    );
  });

  test('the rate limit is one budget across both processes', async () => {
    const [a, b] = limited as [ServerProcess, ServerProcess];
    // 60 requests and the refusals, within one of the clock's minutes.
    await clearOfMinuteEnd(20_000);
    const orgId = await fixtures.org();
    const user = await fixtures.user(orgId);
    const who: Who = { token: user.token, orgId };
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      statuses.push((await at(i % 2 ? b : a)(who, 'GET', '/api/v1/memory')).status);
    }
    expect(statuses).toEqual(statuses.map(() => 200));
    for (const server of [a, b]) {
      const refused = await fetch(`${server.url}/api/v1/memory`, {
        headers: { authorization: `Bearer ${user.token}`, 'x-organization-id': orgId },
      });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('cache-control')).toBe('no-store');
      expect(await refused.json()).toEqual({ error: expect.stringMatching(/rate limit/) });
    }
    // Another subject has its own budget, on either process.
    const other = await fixtures.user(orgId);
    expect((await at(b)({ token: other.token, orgId }, 'GET', '/api/v1/memory')).status).toBe(200);
  });
});
