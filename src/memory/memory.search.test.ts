/**
 * Lexical search through HTTP (`GET /api/v1/memory/search`), on the suite's engine: what is
 * found across scripts, identifiers and punctuation, the list's scope rules, and exactness (found
 * once an add is acknowledged, gone once its delete is).
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listAudit } from '../audit/audit.repository.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import type { MemoryItem } from './memory.schemas.ts';
import { MAX_CANDIDATES } from './memory-search.repository.ts';

const BASE = '/api/v1/memory';

interface Who {
  token: string;
  orgId: string;
  userId: string;
}

type Hit = MemoryItem & { score: number };

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function member(): Promise<Who> {
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  return { orgId, token: user.token, userId: user.id };
}

function checked(res: LightMyRequestResponse) {
  expect(res.headers['cache-control'], res.body).toBe('no-store');
  expect(res.headers['content-type'], res.body).toMatch(/^application\/json/);
  return { status: res.statusCode, body: res.json() as unknown };
}

const send = async (who: Who, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  checked(await t.request(who, { method, url, ...(payload ? { payload } : {}) }));

async function add(who: Who, content: string, extra: object = {}): Promise<MemoryItem> {
  const res = await send(who, 'POST', BASE, { content, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body as { memory: MemoryItem }).memory;
}

const search = (who: Who, q: string, extra = '') =>
  send(who, 'GET', `${BASE}/search?q=${encodeURIComponent(q)}${extra}`);

/** A 200 answer's memories, checked to be exactly `{memories, mode}` of MemoryItems with a score. */
async function found(who: Who, q: string, extra = ''): Promise<Hit[]> {
  const res = await search(who, q, extra);
  expect(res.status, `${q}: ${JSON.stringify(res.body)}`).toBe(200);
  expect(Object.keys(res.body as object).sort()).toEqual(['memories', 'mode']);
  const body = res.body as { memories: Hit[]; mode: string };
  expect(body.mode).toBe('lexical');
  for (const hit of body.memories) expect(typeof hit.score).toBe('number');
  return body.memories;
}

const contents = async (who: Who, q: string, extra = '') =>
  (await found(who, q, extra)).map((hit) => hit.content);

describe('what a query finds', () => {
  let who: Who;
  beforeAll(async () => {
    who = await member();
    for (const content of [
      'Orders a café au lait every morning',
      'Lives in Москва since 2019',
      '東京で寿司を食べた',
      'Blocked on TICKET-4521 until the vendor answers',
      'Production runs release v2.3.1',
      'Deploys everything with k8s',
      'Prefers kubernetes to nomad',
      'Likes green tea',
    ]) {
      await add(who, content);
    }
  });

  test.each([
    ['cafe', 'Orders a café au lait every morning'],
    ['CAFÉ', 'Orders a café au lait every morning'],
    ['МОСКВА', 'Lives in Москва since 2019'],
    ['москва', 'Lives in Москва since 2019'],
    ['寿司', '東京で寿司を食べた'],
    ['東京', '東京で寿司を食べた'],
    ['TICKET-4521', 'Blocked on TICKET-4521 until the vendor answers'],
    ['ticket 4521', 'Blocked on TICKET-4521 until the vendor answers'],
    ['ticket4521', 'Blocked on TICKET-4521 until the vendor answers'],
    ['v2.3.1', 'Production runs release v2.3.1'],
    ['V2.3.1', 'Production runs release v2.3.1'],
    ['k8s', 'Deploys everything with k8s'],
    ['kuber', 'Prefers kubernetes to nomad'],
    ['green t', 'Likes green tea'],
    ['what kind of tea', 'Likes green tea'],
  ])('%s finds %s', async (q, content) => {
    expect(await contents(who, q)).toEqual([content]);
  });

  test('only the last word is a prefix; holding more of the query ranks first', async () => {
    const other = await member();
    const kubernetes = await add(other, 'Prefers kubernetes to nomad');
    const named = await add(other, 'Named the cat Kuber, like a nomad');
    // `kuber` typed whole matches only the cat's name; `nomad` both.
    expect(await contents(other, 'kuber nomad')).toEqual([named.content, kubernetes.content]);
    expect(await contents(other, 'nomad kuber')).toHaveLength(2);
    // A query that ends after its last word is typed whole.
    expect(await contents(other, 'kuber ')).toEqual([named.content]);
  });

  test('a word that no memory has finds nothing', async () => {
    expect(await contents(who, 'espresso')).toEqual([]);
  });

  test.each([
    ['"green tea"', ['Likes green tea']],
    ['(green)', ['Likes green tea']],
    ['green NOT', ['Likes green tea']],
    ['NOT green', ['Likes green tea']],
    ['-green', ['Likes green tea']],
    ['tea*', ['Likes green tea']],
    ['green AND OR NEAR(', ['Likes green tea']],
    ['"', []],
    ["'); drop table memories; --", []],
    ['* - ( ) " : ^ +', []],
    ['\\', []],
  ])('%s is searched, not parsed', async (q, expected) => {
    expect(await contents(who, q)).toEqual(expected);
  });

  test('the best match first, with a higher score', async () => {
    const other = await member();
    await add(other, 'tea');
    await add(other, 'tea tea tea and more tea: tea is all');
    await add(other, 'coffee, then tea');
    const hits = await found(other, 'tea');
    expect(hits).toHaveLength(3);
    expect(hits[0]?.content).toBe('tea tea tea and more tea: tea is all');
    const scores = hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]).toBeGreaterThan(scores[2] as number);
  });

  test('a question finds by what it asks: its function words match nothing', async () => {
    const other = await member();
    const manager = await add(
      other,
      'Reports to Sofia Marchetti, engineering manager of the payments group',
    );
    const managed = await add(other, 'Managed the payments migration in 2023');
    for (const content of [
      'Has a son, Yanis, who is seven',
      'Her backup is Olga, who is on call this week',
      'Who is paged first is in the rota',
      'The office is in Lyon',
    ]) {
      await add(other, content);
    }
    // `who`, `is`, `my` are English function words: only `manager` is asked for, and its stem
    // finds `Managed` too.
    const hits = await found(other, 'who is my manager?');
    expect(hits.map((hit) => hit.id).sort()).toEqual([manager.id, managed.id].sort());
    // Function words are not indexed, unless a memory has nothing else: a query of them only
    // finds such a memory.
    const band = await add(other, 'The Who');
    expect((await found(other, 'the who?')).map((hit) => hit.id)).toEqual([band.id]);
  });
});

describe('a store larger than the candidates read', () => {
  // Past MAX_CANDIDATES memories a store is no longer ranked whole: each word's memories are
  // counted first, a common word is not looked up, and only common words read the latest.
  let who: Who;
  const rare: Record<string, MemoryItem> = {};
  beforeAll(async () => {
    who = await member();
    const common = Array.from(
      { length: MAX_CANDIDATES + 10 },
      (_, i) => `Weekly team sync notes, part ${i}`,
    );
    for (let i = 0; i < common.length; i += 50) {
      await Promise.all(common.slice(i, i + 50).map((content) => add(who, content)));
    }
    rare.budget = await add(who, 'The team budget for GPUs is 40k a quarter');
    rare.kombucha = await add(who, 'Brews kombucha at home');
    rare.kombuchaPlan = await add(who, 'Kombucha tasting on Friday', { category: 'project' });
  }, 120_000);

  test('a rare word beside a common one: the rare word brings its memories, both score', async () => {
    expect(await contents(who, 'team budget')).toEqual([rare.budget?.content]);
    expect((await contents(who, 'kombucha')).sort()).toEqual(
      [rare.kombucha?.content, rare.kombuchaPlan?.content].sort(),
    );
  });

  test('the category keeps its own memories, on both kinds of words', async () => {
    const plans = await contents(who, 'kombucha', '&category=project');
    expect(plans).toEqual([rare.kombuchaPlan?.content]);
    expect(await contents(who, 'weekly sync', '&category=project')).toEqual([]);
    expect(await contents(who, 'weekly kombucha', '&category=project')).toEqual(plans);
  });

  test('only common words: the memories holding all of them, the latest read', async () => {
    const hits = await found(who, 'weekly sync', '&limit=5');
    expect(hits).toHaveLength(5);
    for (const hit of hits) expect(hit.content).toMatch(/^Weekly team sync notes, part \d+$/);
    expect(await found(who, 'team', '&limit=100')).toHaveLength(100);
  });

  test('a word no memory holds finds nothing', async () => {
    expect(await contents(who, 'zyzzyva quokka')).toEqual([]);
  });
});

describe('the answer', () => {
  test('exactly MemoryItems with a score; category and limit filter', async () => {
    const who = await member();
    const a = await add(who, 'project alpha uses postgres', { category: 'project' });
    const b = await add(who, 'alpha likes postgres too');
    const hits = await found(who, 'alpha postgres');
    expect(
      hits.map(({ score: _, ...item }) => item).sort((x, y) => (x.id < y.id ? -1 : 1)),
    ).toEqual([a, b].sort((x, y) => (x.id < y.id ? -1 : 1)));
    expect(Object.keys(hits.find((h) => h.id === a.id) ?? {}).sort()).toEqual([
      'category',
      'content',
      'createdAt',
      'id',
      'score',
      'updatedAt',
    ]);
    expect(await found(who, 'alpha', '&category=project')).toEqual([
      { ...a, score: expect.any(Number) },
    ]);
    expect(await found(who, 'alpha', '&limit=1')).toHaveLength(1);
    expect(await found(who, 'alpha', '&limit=100')).toHaveLength(2);
  });

  test.each([
    ['', 'q is required'],
    ['%20%20', 'q is required'],
  ])('q=%j: 400', async (q, error) => {
    const who = await member();
    expect(await send(who, 'GET', `${BASE}/search?q=${q}`)).toEqual({
      status: 400,
      body: { error },
    });
  });

  test('no q: 400', async () => {
    const who = await member();
    expect(await send(who, 'GET', `${BASE}/search`)).toEqual({
      status: 400,
      body: { error: 'q is required' },
    });
  });

  test.each(['0', '101', '-1', '1.5', 'x', ''])('limit=%s: 400', async (limit) => {
    const who = await member();
    expect(await send(who, 'GET', `${BASE}/search?q=a&limit=${limit}`)).toEqual({
      status: 400,
      body: { error: 'limit must be an integer from 1 to 100' },
    });
  });

  test('an unknown category: 400', async () => {
    const who = await member();
    const res = await send(who, 'GET', `${BASE}/search?q=a&category=food`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/category/) });
  });

  test('no credential: 401', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/search?q=a` });
    expect(res.statusCode).toBe(401);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('another method: 405 with Allow', async () => {
    const who = await member();
    const res = await t.request(who, { method: 'POST', url: `${BASE}/search`, payload: {} });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});

describe('scope', () => {
  test('only the store searched: not another member, not a pool, not another organization', async () => {
    const alice = await member();
    const bob = { ...(await t.fixtures.user(alice.orgId)), orgId: alice.orgId };
    const bobWho = { orgId: alice.orgId, token: bob.token, userId: bob.id };
    const stranger = await member();
    const project = await t.fixtures.project(alice.orgId, { [alice.userId]: 'editor' });
    const own = await add(alice, 'shared secret handshake');
    const pooled = await add(alice, 'shared secret handshake in the pool', { project });
    await add(bobWho, 'shared secret handshake of bob');
    await add(stranger, 'shared secret handshake elsewhere');
    expect((await found(alice, 'handshake')).map((h) => h.id)).toEqual([own.id]);
    expect((await found(alice, 'handshake', `&project=${project}`)).map((h) => h.id)).toEqual([
      pooled.id,
    ]);
  });

  test('user: another member, audited; the policy, a non-member and project with user refused', async () => {
    const orgId = await t.fixtures.org({ userOverride: 'admins' });
    const admin = await t.fixtures.user(orgId, 'admin');
    const plain = await t.fixtures.user(orgId);
    const adminWho = { orgId, token: admin.token, userId: admin.id };
    const plainWho = { orgId, token: plain.token, userId: plain.id };
    const m = await add(plainWho, 'the spare key is under the mat');
    const before = (await listAudit(t.database.db, orgId)).length;
    expect((await found(adminWho, 'spare key', `&user=${plain.id}`)).map((h) => h.id)).toEqual([
      m.id,
    ]);
    const audit = await listAudit(t.database.db, orgId);
    expect(audit).toHaveLength(before + 1);
    expect({ ...audit[0] }).toMatchObject({
      actor_id: admin.id,
      target_id: plain.id,
      action: 'search',
      memory_id: null,
    });
    // Acting for oneself is no override: not audited.
    await found(plainWho, 'spare', `&user=${plain.id}`);
    expect(await listAudit(t.database.db, orgId)).toHaveLength(before + 1);

    expect(await search(plainWho, 'spare', `&user=${admin.id}`)).toEqual({
      status: 403,
      body: { error: 'acting for another member is restricted to organization owners and admins' },
    });
    const outsider = await member();
    expect(await search(adminWho, 'spare', `&user=${outsider.userId}`)).toEqual({
      status: 400,
      body: { error: 'user is not a member of this organization' },
    });
    const project = await t.fixtures.project(orgId, { [admin.id]: 'owner' });
    expect(await search(adminWho, 'spare', `&user=${plain.id}&project=${project}`)).toEqual({
      status: 400,
      body: { error: 'project cannot be combined with user' },
    });
    expect(await listAudit(t.database.db, orgId)).toHaveLength(before + 1);
  });

  test('project: 404 unknown, 403 without access, a viewer finds', async () => {
    const alice = await member();
    const viewer = await t.fixtures.user(alice.orgId);
    const outsider = await t.fixtures.user(alice.orgId);
    const project = await t.fixtures.project(alice.orgId, {
      [alice.userId]: 'owner',
      [viewer.id]: 'viewer',
    });
    const m = await add(alice, 'the pool keeps the roadmap', { project });
    const as = (u: { id: string; token: string }) => ({
      orgId: alice.orgId,
      token: u.token,
      userId: u.id,
    });
    expect((await found(as(viewer), 'roadmap', `&project=${project}`)).map((h) => h.id)).toEqual([
      m.id,
    ]);
    expect(await search(as(outsider), 'roadmap', `&project=${project}`)).toEqual({
      status: 403,
      body: { error: 'no access to this project' },
    });
    expect(await search(alice, 'roadmap', '&project=00000000-0000-4000-8000-000000000000')).toEqual(
      { status: 404, body: { error: 'project not found' } },
    );
  });
});

describe('exactness', () => {
  test('found once added, changed with an update, gone once deleted', async () => {
    const who = await member();
    const m = await add(who, 'the boat is moored at pier seven');
    expect((await found(who, 'pier seven')).map((h) => h.id)).toEqual([m.id]);
    const patched = await t.request(who, {
      method: 'PATCH',
      url: `${BASE}/${m.id}`,
      payload: { content: 'the boat is moored at dock nine' },
    });
    expect(patched.statusCode).toBe(200);
    expect(await found(who, 'pier')).toEqual([]);
    expect((await found(who, 'dock nine')).map((h) => h.id)).toEqual([m.id]);
    expect((await send(who, 'DELETE', `${BASE}/${m.id}`)).status).toBe(200);
    expect(await found(who, 'dock nine')).toEqual([]);
    expect(await found(who, 'boat')).toEqual([]);
  });

  test('a fold that adds a category keeps the memory findable, in that category', async () => {
    const who = await member();
    const m = await add(who, 'Runs every Sunday');
    const folded = await send(who, 'POST', BASE, {
      content: 'runs every sunday',
      category: 'goal',
    });
    expect(folded.status).toBe(200);
    expect((await found(who, 'sunday', '&category=goal')).map((h) => h.id)).toEqual([m.id]);
  });

  test('property: whatever was acknowledged and matches is found; whatever was deleted is not', async () => {
    const WORDS = ['alpha', 'beta', 'gamma', 'délta', '東京', 'TICKET-7', 'v1.2'];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), words: fc.subarray(WORDS, { minLength: 1 }) }),
      fc.record({
        kind: fc.constant('update' as const),
        pick: fc.nat(),
        words: fc.subarray(WORDS, { minLength: 1 }),
      }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { maxLength: 6 }),
        async (batches) => {
          const who = await member();
          const live = new Map<string, string>();
          let n = 0;
          for (const batch of batches) {
            // Each batch runs at once, each update or delete on a memory of its own: every
            // acknowledged outcome is the model's next state, whatever the commit order.
            const ids = [...live.keys()];
            const touched = new Set<string>();
            const acts = batch.map(async (o) => {
              if (o.kind === 'add') {
                const content = `${o.words.join(' ')} n${n++}`;
                const m = await add(who, content);
                return () => live.set(m.id, content);
              }
              const id = ids[o.pick % Math.max(ids.length, 1)];
              if (id === undefined || touched.has(id)) return () => {};
              touched.add(id);
              if (o.kind === 'delete') {
                expect((await send(who, 'DELETE', `${BASE}/${id}`)).status).toBe(200);
                return () => live.delete(id);
              }
              const content = `${o.words.join(' ')} n${n++}`;
              const res = await t.request(who, {
                method: 'PATCH',
                url: `${BASE}/${id}`,
                payload: { content },
              });
              expect(res.statusCode).toBe(200);
              return () => live.set(id, content);
            });
            for (const apply of await Promise.all(acts)) apply();
            for (const word of WORDS) {
              const expected = [...live]
                .filter(([, content]) => content.split(' ').includes(word))
                .map(([id]) => id)
                .sort();
              const hits = (await found(who, word, '&limit=100')).map((h) => h.id).sort();
              expect(hits, word).toEqual(expected);
            }
          }
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);
});

describe('words that many memories of the database hold', () => {
  test('only the store’s own, best first, within the limit and the category; any word too', async () => {
    const [mine, theirs] = [await member(), await member()];
    // More rows of the whole index hold `tea` than a search reads across stores (200 on
    // SQLite): it reads the store's own rows instead. The same words in another store.
    const own = new Set<string>();
    for (let i = 0; i < 130; i += 10) {
      const batch = Array.from({ length: 10 }, (_, j) => `Drinks tea number ${i + j}`);
      for (const memory of await Promise.all(batch.map((text) => add(mine, text)))) {
        own.add(memory.id);
      }
      await Promise.all(batch.map((text) => add(theirs, text)));
    }
    const strong = await add(mine, 'Tea tea tea, always tea', { category: 'preference' });
    own.add(strong.id);

    const hits = await found(mine, 'tea', '&limit=5');
    expect(hits).toHaveLength(5);
    expect(hits[0]?.id).toBe(strong.id);
    expect(hits.every((hit) => own.has(hit.id))).toBe(true);
    expect(hits.map((hit) => hit.score)).toEqual(
      [...hits.map((hit) => hit.score)].sort((a, b) => b - a),
    );
    expect((await found(mine, 'tea', '&category=preference')).map((hit) => hit.id)).toEqual([
      strong.id,
    ]);
    const theirsFound = await found(theirs, 'tea', '&limit=100');
    expect(theirsFound).toHaveLength(100);
    expect(theirsFound.some((hit) => own.has(hit.id))).toBe(false);
    // No memory holds every word: any word, the rare `always` first.
    const any = await found(mine, 'does she always drink tea?', '&limit=3');
    expect(any[0]?.id).toBe(strong.id);
    expect(any.every((hit) => own.has(hit.id))).toBe(true);
  });
});
