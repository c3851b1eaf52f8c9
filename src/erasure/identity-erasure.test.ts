/**
 * Erasing an end user through HTTP, with hybrid search on: nothing of them is found afterwards,
 * by the API (list, sync, search, by id) or in any table or index of the store (memories, their
 * search index, vectors, proposals, grants, keys, their row); the audit log
 * keeps only that it happened, by whom and how much; their external id can be registered anew;
 * and a write racing the erasure cannot bring them back. Erasing people everywhere at once never
 * leaves an organization that other people belong to without an owner.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OPERATOR_ACTOR_ID } from '../audit/index.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { call } from '../testing/management-client.ts';
import { hybridSearchEnv } from '../testing/search-config.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../testing/simulators/openai-simulator.ts';
import { createUncachedErasure } from './identity-erasure.ts';

const API_KEY = 'sk-sim';
let sim: OpenAiSimulator;
let t: TestApp;

beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: API_KEY });
  t = await buildTestApp(
    hybridSearchEnv({ kind: 'openai', baseUrl: sim.baseUrl, apiKey: API_KEY }),
  );
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

async function org() {
  const orgId = await t.fixtures.org({ name: 'Acme' });
  const owner = await t.fixtures.user(orgId, 'owner');
  const as = { token: owner.token, orgId };
  const endUsers = `/api/v1/orgs/${orgId}/end-users`;
  return { orgId, owner, as, endUsers };
}

type Org = Awaited<ReturnType<typeof org>>;

const memory = async (o: Org, method: string, url: string, payload?: object) => {
  const res = await t.request(o.as, {
    method: method as 'GET',
    url,
    ...(payload ? { payload } : {}),
  });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
};

async function register(o: Org, externalId: string, name?: string) {
  const answer = await call(
    t,
    o.owner.token,
    'PUT',
    `${o.endUsers}/${externalId}`,
    name ? { name } : undefined,
  );
  return (answer.body as { endUser: { id: string } }).endUser.id;
}

/** Rows of every table that could hold something of `userId` or of its memories. */
async function traces(userId: string, memoryIds: readonly string[]) {
  const { db } = t.database;
  const count = async (query: { execute(): Promise<unknown[]> }) => (await query.execute()).length;
  return {
    memories: await count(
      db.selectFrom('memories').select('id').where('contributor_id', '=', userId),
    ),
    memoriesById:
      memoryIds.length === 0
        ? 0
        : await count(db.selectFrom('memories').select('id').where('id', 'in', memoryIds)),
    stores: await count(db.selectFrom('scopes').select('id').where('owner_id', '=', userId)),
    vectors:
      memoryIds.length === 0
        ? 0
        : await count(
            db
              .selectFrom('memory_embeddings')
              .select('memory_id')
              .where('memory_id', 'in', memoryIds),
          ),
    proposals: await count(
      db.selectFrom('memory_proposals').select('id').where('user_id', '=', userId),
    ),
    grants: await count(
      db.selectFrom('project_access').select('project_id').where('user_id', '=', userId),
    ),
    keys: await count(db.selectFrom('api_keys').select('id').where('user_id', '=', userId)),
    memberships: await count(
      db.selectFrom('memberships').select('org_id').where('user_id', '=', userId),
    ),
    externalIds: await count(
      db.selectFrom('end_users').select('user_id').where('user_id', '=', userId),
    ),
  };
}

/** Whether the engine's own search index still matches `word` anywhere. */
async function indexHolds(word: string): Promise<boolean> {
  const { db } = t.database;
  if (t.database.dialect === 'sqlite') {
    const { rows } =
      await sql`select rowid from memory_search where memory_search match ${`"${word}"`}`.execute(
        db,
      );
    return rows.length > 0;
  }
  const { rows } =
    await sql`select id from memories where search_vector @@ to_tsquery('simple', ${word})`.execute(
      db,
    );
  return rows.length > 0;
}

describe('erasing an end user', () => {
  test('leaves nothing of them to find, by the API or in the store; the audit log keeps the act', async () => {
    const o = await org();
    const jane = await register(o, 'jane-1', 'Jane Quokkason');
    const bystander = await t.fixtures.user(o.orgId, 'member');
    const contents = [
      'Keeps a pet quokka named Zanzibar.',
      'Works as a cartographer of fjords.',
      'Prefers oolong tea.',
    ];
    const ids: string[] = [];
    for (const content of contents) {
      const added = await memory(o, 'POST', '/api/v1/memory', { content, user: jane });
      expect(added.status).toBe(201);
      ids.push((added.body.memory as { id: string }).id);
    }
    // Someone else remembers the same word: it must stay findable.
    await t.request(
      { token: bystander.token, orgId: o.orgId },
      { method: 'POST', url: '/api/v1/memory', payload: { content: 'Saw a quokka on Rottnest.' } },
    );
    await t.app.embeddingIndexer?.idle();
    const cursor = (await memory(o, 'GET', `/api/v1/memory?user=${jane}`)).body.cursor as string;
    const before = await memory(
      o,
      'GET',
      `/api/v1/memory/search?user=${jane}&q=${encodeURIComponent('a small marsupial')}`,
    );
    expect(before.body.mode).toBe('hybrid');
    const found = await memory(o, 'GET', `/api/v1/memory/search?user=${jane}&q=quokka`);
    expect((found.body.memories as { id: string }[]).map((m) => m.id)).toContain(ids[0]);
    expect((await traces(jane, ids)).vectors).toBe(3);

    const projectId = await t.fixtures.project(o.orgId, { [o.owner.id]: 'owner' });
    expect(
      (
        await call(t, o.owner.token, 'PUT', `/api/v1/projects/${projectId}/collaborators/${jane}`, {
          access: 'viewer',
        })
      ).status,
    ).toBe(200);
    await t.database.db
      .insertInto('memory_proposals')
      .values({
        id: randomUUID(),
        org_id: o.orgId,
        user_id: jane,
        key_id: randomUUID(),
        project_id: null,
        action: 'add',
        memory_id: null,
        content: 'Collects maps of Zanzibar.',
        category: null,
        created_at: Date.now(),
      })
      .execute();
    expect(await traces(jane, ids)).toEqual({
      memories: 3,
      memoriesById: 3,
      stores: 1,
      vectors: 3,
      proposals: 1,
      grants: 1,
      keys: 0,
      memberships: 1,
      externalIds: 1,
    });

    expect(await call(t, o.owner.token, 'DELETE', `${o.endUsers}/jane-1`)).toEqual({
      status: 200,
      body: { ok: true },
    });

    // By the API: no member any more, wherever one is named.
    const unknown = { status: 400, body: { error: 'user is not a member of this organization' } };
    expect(await memory(o, 'GET', `/api/v1/memory?user=${jane}`)).toEqual(unknown);
    expect(await memory(o, 'GET', `/api/v1/memory?user=${jane}&since=${cursor}`)).toEqual(unknown);
    expect(await memory(o, 'GET', `/api/v1/memory/search?user=${jane}&q=quokka`)).toEqual(unknown);
    expect(await memory(o, 'GET', `/api/v1/memory/${ids[0]}?user=${jane}`)).toEqual(unknown);
    expect(
      await memory(o, 'POST', '/api/v1/memory', { content: 'Back again', user: jane }),
    ).toEqual(unknown);
    expect(await call(t, o.owner.token, 'GET', `${o.endUsers}/jane-1`)).toEqual({
      status: 404,
      body: { error: 'end user not found' },
    });
    expect(
      (await call(t, o.owner.token, 'GET', `/api/v1/projects/${projectId}/collaborators`)).body,
    ).toEqual({
      collaborators: [expect.objectContaining({ userId: o.owner.id })],
    });

    // In the store: no row, no index entry, no vector; their row keeps only its id.
    expect(await traces(jane, ids)).toEqual({
      memories: 0,
      memoriesById: 0,
      stores: 0,
      vectors: 0,
      proposals: 0,
      grants: 0,
      keys: 0,
      memberships: 0,
      externalIds: 0,
    });
    expect(await indexHolds('zanzibar')).toBe(false);
    expect(await indexHolds('cartographer')).toBe(false);
    expect(await indexHolds('quokka')).toBe(true);
    expect(
      await t.database.db.selectFrom('users').select('id').where('id', '=', jane).execute(),
    ).toEqual([]);

    // The audit log: that it happened, by whom, how much; nothing they were or said.
    const audit = await t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('org_id', '=', o.orgId)
      .where('action', '=', 'end_user.erase')
      .execute();
    expect(
      audit.map((entry) => ({ ...entry, details: JSON.parse(entry.details ?? 'null') })),
    ).toEqual([
      expect.objectContaining({
        actor_id: o.owner.id,
        target_id: jane,
        memory_id: null,
        details: { memories: 3, poolMemories: 0, proposals: 1, projectGrants: 1, apiKeys: 0 },
      }),
    ]);
    const everything = JSON.stringify(
      await t.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('org_id', '=', o.orgId)
        .execute(),
    );
    for (const trace of ['jane-1', 'Quokkason', 'Zanzibar', 'cartographer']) {
      expect(everything).not.toContain(trace);
    }

    // Again: done, nothing more happens; the app's id can name a new person.
    expect((await call(t, o.owner.token, 'DELETE', `${o.endUsers}/jane-1`)).body).toEqual({
      ok: true,
    });
    expect((await call(t, o.owner.token, 'DELETE', `${o.endUsers}/never-known`)).body).toEqual({
      ok: true,
    });
    const again = await call(t, o.owner.token, 'PUT', `${o.endUsers}/jane-1`);
    expect(again.status).toBe(201);
    const anew = (again.body as { endUser: { id: string } }).endUser.id;
    expect(anew).not.toBe(jane);
    expect((await memory(o, 'GET', `/api/v1/memory?user=${anew}`)).body.memories).toEqual([]);
  });

  test('writes racing the erasure: each answered 201 or 400, and none outlives it', async () => {
    const o = await org();
    for (let round = 0; round < 5; round++) {
      const externalId = `racer-${round}`;
      const id = await register(o, externalId);
      const writes = Array.from({ length: 12 }, (_, i) =>
        memory(o, 'POST', '/api/v1/memory', { content: `Fact ${round}.${i}`, user: id }),
      );
      const erased = call(t, o.owner.token, 'DELETE', `${o.endUsers}/${externalId}`);
      const answers = await Promise.all(writes);
      expect((await erased).status).toBe(200);
      for (const answer of answers) expect([201, 400]).toContain(answer.status);
      expect(await traces(id, [])).toMatchObject({ memories: 0, stores: 0, memberships: 0 });
    }
  });
});

describe('erasing a person everywhere', () => {
  const erasure = () => createUncachedErasure(t.database);
  const eraseAccount = (userId: string) =>
    erasure().eraseAccount({ userId, actorId: OPERATOR_ACTOR_ID, action: 'user.erase' });

  test('the two owners of an organization erased at once: one goes, the other is then its only owner and refused', async () => {
    for (let round = 0; round < 5; round++) {
      const orgId = await t.fixtures.org({ name: `Twins ${round}` });
      const [first, second] = await Promise.all([
        t.fixtures.user(orgId, 'owner'),
        t.fixtures.user(orgId, 'owner'),
        t.fixtures.user(orgId, 'member'),
      ]);
      const outcomes = await Promise.all([eraseAccount(first.id), eraseAccount(second.id)]);
      const refused = outcomes.filter((outcome) => outcome && 'refused' in outcome);
      expect(refused).toEqual([{ refused: [{ id: orgId, name: `Twins ${round}` }] }]);
      const owners = await t.database.db
        .selectFrom('memberships')
        .select('user_id')
        .where('org_id', '=', orgId)
        .where('role', '=', 'owner')
        .execute();
      expect(owners).toHaveLength(1);
    }
  });
});
