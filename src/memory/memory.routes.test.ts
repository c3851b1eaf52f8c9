/**
 * The memory API's behaviour, through HTTP (`app.inject`), against the spec and docs/design.md §3.
 * Every answer checked here must carry `Cache-Control: no-store` and a JSON content type.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../app.ts';
import { createDatabase } from '../db/database.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import type { MemoryItem } from './memory.schemas.ts';

const BASE = '/api/v1/memory';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CATEGORIES = ['identity', 'preference', 'goal', 'project', 'relationship', 'constraint'];
const NOT_FOUND = { error: 'memory not found' };
const FEATURE_OFF = { error: 'memory is not enabled for this organization' };
/** An error whose text docs/design.md leaves open: one non-empty string field, nothing else. */
const ANY_ERROR = { error: expect.stringMatching(/\S/) };

type Item = MemoryItem;

interface ListBody {
  memories: Item[];
  deleted?: string[];
  cursor: string;
}

interface Who {
  token: string;
  orgId: string;
  userId: string;
}

interface Answer {
  status: number;
  body: unknown;
  headers: LightMyRequestResponse['headers'];
}

/** Every answer: `no-store` and JSON, whatever the status. */
function checked(res: LightMyRequestResponse): Answer {
  const what = `${res.statusCode} ${res.body}`;
  expect(res.headers['cache-control'], what).toBe('no-store');
  expect(res.headers['content-type'], what).toMatch(/^application\/json/);
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

function api(app: TestApp, who: Who) {
  const send = async (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) =>
    checked(
      await app.request(who, {
        method,
        url,
        ...(payload === undefined ? {} : { payload: payload as object }),
      }),
    );
  return {
    send,
    get: (url: string) => send('GET', url),
    post: (payload: unknown) => send('POST', BASE, payload),
    patch: (id: string, payload: unknown, query = '') =>
      send('PATCH', `${BASE}/${id}${query}`, payload),
    del: (id: string, query = '') => send('DELETE', `${BASE}/${id}${query}`),
    one: (id: string, query = '') => send('GET', `${BASE}/${id}${query}`),
    list: (query = '') => send('GET', `${BASE}${query}`),
    since: (cursor: string, extra = '') =>
      send('GET', `${BASE}?since=${encodeURIComponent(cursor)}${extra}`),
    /** Adds and asserts a new memory (201); returns it. */
    async add(content: string, extra: Record<string, unknown> = {}): Promise<Item> {
      const a = await send('POST', BASE, { content, ...extra });
      expect(a.status, JSON.stringify(a.body)).toBe(201);
      return memoryOf(a);
    },
    /** The full list, asserted 200 and without `deleted`. */
    async full(query = ''): Promise<ListBody> {
      const a = await send('GET', `${BASE}${query}`);
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(Object.keys(a.body as object).sort()).toEqual(['cursor', 'memories']);
      return a.body as ListBody;
    },
    /** An incremental pull, asserted 200 with exactly memories, deleted and cursor. */
    async pull(cursor: string, extra = ''): Promise<Required<ListBody>> {
      const a = await send('GET', `${BASE}?since=${encodeURIComponent(cursor)}${extra}`);
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(Object.keys(a.body as object).sort()).toEqual(['cursor', 'deleted', 'memories']);
      return a.body as Required<ListBody>;
    },
  };
}
type Api = ReturnType<typeof api>;

const memoryOf = (a: Answer) => (a.body as { memory: Item }).memory;

/** The MemoryItem shape: exactly five keys (four without a category), UUID, timestamps. */
function expectItem(item: unknown, expected: { content: string; category?: string }): Item {
  const m = item as Item;
  const keys = ['content', 'createdAt', 'id', 'updatedAt'];
  if (expected.category !== undefined) keys.push('category');
  expect(Object.keys(m).sort()).toEqual(keys.sort());
  expect(m).toEqual({
    id: expect.stringMatching(UUID),
    content: expected.content,
    ...(expected.category === undefined ? {} : { category: expected.category }),
    createdAt: expect.stringMatching(TIMESTAMP),
    updatedAt: expect.stringMatching(TIMESTAMP),
  });
  expect(m.updatedAt >= m.createdAt).toBe(true);
  return m;
}

const byId = (items: Iterable<Item>) =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** A fresh organization with one member: tests do not see each other's memories. */
async function member(app: TestApp = t, org: { memoryEnabled?: boolean } = {}): Promise<Who> {
  const orgId = await app.fixtures.org(org);
  const user = await app.fixtures.user(orgId);
  return { orgId, token: user.token, userId: user.id };
}

/** Another member of the same organization. */
async function colleague(of: Who, app: TestApp = t): Promise<Who> {
  const user = await app.fixtures.user(of.orgId);
  return { orgId: of.orgId, token: user.token, userId: user.id };
}

// ---------------------------------------------------------------------------------------------

describe('MemoryItem', () => {
  test('a new memory has exactly id, content, createdAt, updatedAt (category absent, not null)', async () => {
    const a = api(t, await member());
    const before = Date.now();
    const res = await a.post({ content: 'I work at Acme' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body as object)).toEqual(['memory']);
    const m = expectItem(memoryOf(res), { content: 'I work at Acme' });
    expect('category' in m).toBe(false);
    // Recorded now, in UTC.
    expect(Date.parse(m.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(m.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  test('a memory with a category has exactly the five keys', async () => {
    const a = api(t, await member());
    const res = await a.post({ content: 'Call me Sam', category: 'identity' });
    expect(res.status).toBe(201);
    expectItem(memoryOf(res), { content: 'Call me Sam', category: 'identity' });
  });

  test('every endpoint prints a memory the same way, keys in the same order', async () => {
    const a = api(t, await member());
    const start = await a.full();
    const added = await a.add('Keys in order', { category: 'goal' });
    const fromGet = memoryOf(await a.one(added.id));
    const fromList = (await a.full()).memories[0] as Item;
    const fromPull = (await a.pull(start.cursor)).memories[0] as Item;
    const printed = (item: Item) => JSON.stringify(item);
    expect(Object.keys(added)).toEqual(['id', 'content', 'createdAt', 'updatedAt', 'category']);
    for (const item of [fromGet, fromList, fromPull]) expect(printed(item)).toBe(printed(added));
  });

  test('PATCH keeps createdAt and strictly advances updatedAt, even back to back', async () => {
    const a = api(t, await member());
    const created = await a.add('version 0');
    let previous = created;
    for (let i = 1; i <= 5; i++) {
      const res = await a.patch(created.id, { content: `version ${i}` });
      expect(res.status).toBe(200);
      const m = expectItem(memoryOf(res), { content: `version ${i}` });
      expect(m.id).toBe(created.id);
      expect(m.createdAt).toBe(created.createdAt);
      expect(m.updatedAt > previous.updatedAt, `${m.updatedAt} > ${previous.updatedAt}`).toBe(true);
      previous = m;
    }
    const got = await a.one(created.id);
    expect(got.body).toEqual({ memory: previous });
  });

  test('20 concurrent PATCHes get 20 distinct updatedAt values; the stored one is the greatest', async () => {
    const a = api(t, await member());
    const created = await a.add('racing');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => a.patch(created.id, { content: `racer ${i}` })),
    );
    const items = answers.map((res, i) => {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const m = expectItem(memoryOf(res), { content: `racer ${i}` });
      expect(m.createdAt).toBe(created.createdAt);
      expect(m.updatedAt > created.updatedAt).toBe(true);
      return m;
    });
    expect(new Set(items.map((m) => m.updatedAt)).size).toBe(20);
    const last = items.reduce((x, y) => (y.updatedAt > x.updatedAt ? y : x));
    const got = await a.one(created.id);
    expect(got.status).toBe(200);
    // The last committed change wins, and carries the greatest updatedAt.
    expect(got.body).toEqual({ memory: last });
  });
});

// ---------------------------------------------------------------------------------------------

describe('categories', () => {
  test.each(CATEGORIES)('%s is kept', async (category) => {
    const a = api(t, await member());
    const m = await a.add(`about ${category}`, { category });
    expectItem(m, { content: `about ${category}`, category });
    expect((await a.one(m.id)).body).toEqual({ memory: m });
  });

  test.each([
    ['an unknown string', 'hobby'],
    ['an upper-case variant', 'Goal'],
    ['a number', 7],
    ['null', null],
    ['an object', { name: 'goal' }],
    ['an array', ['goal']],
  ])('%s is dropped: saved without a category, 201, no error', async (_, category) => {
    const a = api(t, await member());
    const res = await a.post({ content: 'I ride a bike', category });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${BASE}/${memoryOf(res).id}`);
    const m = expectItem(memoryOf(res), { content: 'I ride a bike' });
    expect((await a.one(m.id)).body).toEqual({ memory: m });
  });

  test('PATCH category: a recognized value sets it; null or an unknown value removes it', async () => {
    const a = api(t, await member());
    const m = await a.add('I lead the platform team');

    const set = await a.patch(m.id, { category: 'relationship' });
    expect(set.status).toBe(200);
    expectItem(memoryOf(set), { content: 'I lead the platform team', category: 'relationship' });

    const changed = await a.patch(m.id, { category: 'goal' });
    expectItem(memoryOf(changed), { content: 'I lead the platform team', category: 'goal' });

    const nulled = await a.patch(m.id, { category: null });
    expect(nulled.status).toBe(200);
    expectItem(memoryOf(nulled), { content: 'I lead the platform team' });
    expect((await a.one(m.id)).body).toEqual({ memory: memoryOf(nulled) });

    await a.patch(m.id, { category: 'constraint' });
    const unknown = await a.patch(m.id, { category: 'hobby' });
    expect(unknown.status).toBe(200);
    expectItem(memoryOf(unknown), { content: 'I lead the platform team' });
    expect((await a.one(m.id)).body).toEqual({ memory: memoryOf(unknown) });
  });

  test('PATCH of content alone keeps the category', async () => {
    const a = api(t, await member());
    const m = await a.add('I like Go', { category: 'preference' });
    const res = await a.patch(m.id, { content: 'I like Rust' });
    expectItem(memoryOf(res), { content: 'I like Rust', category: 'preference' });
  });
});

// ---------------------------------------------------------------------------------------------

describe('content', () => {
  test('missing content: 400 content is required', async () => {
    const a = api(t, await member());
    const res = await a.post({ category: 'goal' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'content is required' });
    expect((await a.full()).memories).toEqual([]);
  });

  test.each([
    ['empty', ''],
    ['white space only', '   \n'],
    ['tabs and non-breaking space', '\t\u00a0\u2003'],
  ])('%s content: 400, nothing stored', async (_, content) => {
    const a = api(t, await member());
    const res = await a.post({ content });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(ANY_ERROR);
    expect((await a.full()).memories).toEqual([]);
  });

  test.each([
    ['a number', 123],
    ['null', null],
    ['an array', []],
    ['an object', {}],
    ['a boolean', true],
  ])('content that is %s: 400, nothing stored', async (_, content) => {
    const a = api(t, await member());
    const kept = await a.add('already here');
    const before = await a.full();
    const res = await a.post({ content });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(ANY_ERROR);
    const after = await a.full();
    expect(after.memories).toEqual([kept]);
    // Nothing changed: the counter did not move.
    expect(after.cursor).toBe(before.cursor);
  });

  test('content is stored exactly as sent: white space, unicode, emoji', async () => {
    const a = api(t, await member());
    const samples = [
      '  leading and trailing  ',
      '\tTabs\tand\nnew lines\n',
      'Größe: ½ — naïve café',
      'ｆｕｌｌｗｉｄｔｈ and ﬁ ligature',
      'Emoji 👩‍👩‍👧‍👦 🇯🇵 😀',
      '日本語のメモ',
      'e\u0301 combining',
    ];
    for (const content of samples) {
      const m = await a.add(content);
      expect(m.content).toBe(content);
      expect(memoryOf(await a.one(m.id)).content).toBe(content);
    }
    expect((await a.full()).memories.map((m) => m.content).sort()).toEqual([...samples].sort());
  });

  test('PATCH content is stored exactly as sent', async () => {
    const a = api(t, await member());
    const m = await a.add('plain');
    const content = '  ✨ spaced\tout ✨  ';
    const res = await a.patch(m.id, { content });
    expect(memoryOf(res).content).toBe(content);
    expect(memoryOf(await a.one(m.id)).content).toBe(content);
  });

  test('at most 8000 characters: 8000 is fine, 8001 is 400 saying the limit', async () => {
    const a = api(t, await member());
    const longest = 'a'.repeat(8000);
    expect((await a.add(longest)).content).toBe(longest);
    const res = await a.post({ content: `${longest}b` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'content is too long: at most 8000 characters' });
    expect((await a.full()).memories).toHaveLength(1);
  });

  test('the limit counts characters (code points), not UTF-16 units', async () => {
    const a = api(t, await member());
    const emoji = '😀'.repeat(8000);
    expect(emoji.length).toBe(16000);
    expect((await a.add(emoji)).content).toBe(emoji);
    const res = await a.post({ content: `${emoji}😀` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'content is too long: at most 8000 characters' });
  });

  test('PATCH content over the limit: 400 saying the limit, unchanged', async () => {
    const a = api(t, await member());
    const m = await a.add('short');
    const res = await a.patch(m.id, { content: 'x'.repeat(8001) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'content is too long: at most 8000 characters' });
    expect((await a.one(m.id)).body).toEqual({ memory: m });
  });

  test('MNEMO_MAX_CONTENT_CHARS sets the limit', async () => {
    const small = await buildTestApp({ MNEMO_MAX_CONTENT_CHARS: '10' });
    try {
      const a = api(small, await member(small));
      expect((await a.add('0123456789')).content).toBe('0123456789');
      expect((await a.add('🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂')).content).toBe('🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂');
      const res = await a.post({ content: '0123456789!' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'content is too long: at most 10 characters' });
    } finally {
      await small.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('add and folded saves', () => {
  test('a new memory: 201, Location, the full memory, visible in GET and the list', async () => {
    const a = api(t, await member());
    const res = await a.post({ content: 'I prefer short answers', category: 'preference' });
    expect(res.status).toBe(201);
    const m = expectItem(memoryOf(res), {
      content: 'I prefer short answers',
      category: 'preference',
    });
    expect(res.body).toEqual({ memory: m });
    expect(res.headers.location).toBe(`/api/v1/memory/${m.id}`);
    expect((await a.one(m.id)).body).toEqual({ memory: m });
    expect((await a.full()).memories).toEqual([m]);
  });

  test.each([
    ['case, spacing and trailing punctuation', '  i LIKE   tea!!?'],
    ['fullwidth letters (NFKC)', 'ｉ like tea'],
    ['the same text', 'I like tea.'],
    ['tabs and new lines', 'I\tlike\n tea'],
  ])('%s fold: 200 with the existing id and content', async (_, variant) => {
    const a = api(t, await member());
    const original = await a.add('I like tea.');
    const res = await a.post({ content: variant });
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.body).toEqual({ memory: { id: original.id, content: 'I like tea.' } });
    expect((await a.full()).memories).toEqual([original]);
  });

  test('different words do not fold', async () => {
    const a = api(t, await member());
    const original = await a.add('I like tea.');
    const other = await a.add('I like tea, really');
    expect(other.id).not.toBe(original.id);
    const punctuationInside = await a.add('I like. tea');
    expect(punctuationInside.id).not.toBe(original.id);
    expect((await a.full()).memories).toHaveLength(3);
  });

  test('no fold across scopes: another user, a project pool, another organization', async () => {
    const alice = await member();
    const bob = await colleague(alice);
    const a = api(t, alice);
    const mine = await a.add('I like tea.');

    const bobs = await api(t, bob).add('I like tea.');
    expect(bobs.id).not.toBe(mine.id);

    const project = await t.fixtures.project(alice.orgId, { [alice.userId]: 'editor' });
    const pooled = await a.add('I like tea.', { project });
    expect(pooled.id).not.toBe(mine.id);
    // …but within the pool it folds into the pool's memory.
    const again = await a.post({ content: 'i like tea', project });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ memory: { id: pooled.id, content: 'I like tea.' } });

    const otherOrg = await t.fixtures.org();
    await t.fixtures.member(otherOrg, alice.userId);
    const elsewhere = await api(t, { ...alice, orgId: otherOrg }).add('I like tea.');
    expect(elsewhere.id).not.toBe(mine.id);

    expect((await a.full()).memories).toEqual([mine]);
  });

  test('a deleted memory does not fold: adding it again creates a new one', async () => {
    const a = api(t, await member());
    const first = await a.add('I like tea.');
    expect((await a.del(first.id)).status).toBe(200);
    const res = await a.post({ content: 'I like tea.' });
    expect(res.status).toBe(201);
    const second = memoryOf(res);
    expect(second.id).not.toBe(first.id);
    expect((await a.full()).memories).toEqual([second]);
  });

  test('a fold that brings a category to a memory without one: it takes it, updatedAt advances, a pull reports it', async () => {
    const a = api(t, await member());
    const original = await a.add('I like tea.');
    const { cursor } = await a.full();
    const res = await a.post({ content: 'i like tea', category: 'preference' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ memory: { id: original.id, content: 'I like tea.' } });

    const now = memoryOf(await a.one(original.id));
    expectItem(now, { content: 'I like tea.', category: 'preference' });
    expect(now.createdAt).toBe(original.createdAt);
    expect(now.updatedAt > original.updatedAt).toBe(true);

    const pulled = await a.pull(cursor);
    expect(pulled.memories).toEqual([now]);
    expect(pulled.deleted).toEqual([]);
    expect(pulled.cursor).not.toBe(cursor);
  });

  test('a fold that changes nothing does not move the counter', async () => {
    const a = api(t, await member());
    const original = await a.add('I like tea.', { category: 'preference' });
    const plain = await a.add('I like coffee');
    const { cursor } = await a.full();

    // Already has a category: another one does not replace it.
    const withOther = await a.post({ content: 'I LIKE TEA', category: 'goal' });
    expect(withOther.status).toBe(200);
    expect(withOther.body).toEqual({ memory: { id: original.id, content: 'I like tea.' } });
    // No category, or an unrecognized one, brings nothing.
    for (const extra of [{}, { category: 'hobby' }, { category: null }]) {
      const res = await a.post({ content: 'i like coffee!', ...extra });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ memory: { id: plain.id, content: 'I like coffee' } });
    }

    expect(await a.pull(cursor)).toEqual({ memories: [], deleted: [], cursor });
    expect((await a.one(original.id)).body).toEqual({ memory: original });
    expect((await a.one(plain.id)).body).toEqual({ memory: plain });
  });

  test('10 concurrent identical adds leave exactly one memory: one 201, nine 200 with its id', async () => {
    const a = api(t, await member());
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => a.post({ content: 'I live in Lisbon' })),
    );
    const created = answers.filter((r) => r.status === 201);
    const folded = answers.filter((r) => r.status === 200);
    expect(created).toHaveLength(1);
    expect(folded).toHaveLength(9);
    const m = expectItem(memoryOf(created[0] as Answer), { content: 'I live in Lisbon' });
    for (const r of folded) {
      expect(r.body).toEqual({ memory: { id: m.id, content: 'I live in Lisbon' } });
    }
    expect((await a.full()).memories).toEqual([m]);
  });

  test('10 concurrent adds of variants that fold leave exactly one memory', async () => {
    const a = api(t, await member());
    const variants = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0 ? `I live in Porto${'!'.repeat(i)}` : ` i live IN porto${'.'.repeat(i)}`,
    );
    const answers = await Promise.all(variants.map((content) => a.post({ content })));
    const created = answers.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    const m = memoryOf(created[0] as Answer);
    for (const r of answers.filter((x) => x.status === 200)) {
      expect(r.body).toEqual({ memory: { id: m.id, content: m.content } });
    }
    expect(answers.filter((r) => r.status !== 200 && r.status !== 201)).toEqual([]);
    expect((await a.full()).memories).toEqual([m]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('GET one memory', () => {
  test('200 {memory}', async () => {
    const a = api(t, await member());
    const m = await a.add('I am a nurse', { category: 'identity' });
    const res = await a.one(m.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ memory: m });
  });

  test('an id in upper case names the same memory', async () => {
    const a = api(t, await member());
    const m = await a.add('case of ids');
    const res = await a.one(m.id.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ memory: m });
  });

  test.each([
    ['an unknown id', () => randomUUID()],
    ['a non-UUID id', () => 'not-a-uuid'],
    ['a number', () => '12345'],
    ['a UUID with a trailing character', () => `${randomUUID()}x`],
  ])('%s: 404 memory not found', async (_, id) => {
    const a = api(t, await member());
    const res = await a.one(id());
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  test('a deleted memory: 404', async () => {
    const a = api(t, await member());
    const m = await a.add('soon gone');
    await a.del(m.id);
    const res = await a.one(m.id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  test("another user's memory: 404 on GET, PATCH and DELETE, and it stays untouched", async () => {
    const alice = await member();
    const a = api(t, alice);
    const m = await a.add("Alice's secret");
    const b = api(t, await colleague(alice));
    for (const res of [
      await b.one(m.id),
      await b.patch(m.id, { content: 'hijacked' }),
      await b.del(m.id),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    // The same user id in another organization does not reach it either.
    const otherOrg = await t.fixtures.org();
    await t.fixtures.member(otherOrg, alice.userId);
    const res = await api(t, { ...alice, orgId: otherOrg }).one(m.id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    expect((await a.one(m.id)).body).toEqual({ memory: m });
  });
});

// ---------------------------------------------------------------------------------------------

describe('PATCH', () => {
  test.each([
    ['no fields', {}],
    ['only baseUpdatedAt', { baseUpdatedAt: '2026-01-01T00:00:00.000Z' }],
    ['empty content', { content: '' }],
    ['white-space content', { content: ' \n\t' }],
    ['non-string content', { content: 42 }],
    ['null content', { content: null }],
    ['an unknown field', { colour: 'blue' }],
    ['an unknown field beside a valid one', { content: 'fine', colour: 'blue' }],
    ['a misspelt field', { categry: 'goal' }],
  ])('%s: 400, nothing changed', async (_, body) => {
    const a = api(t, await member());
    const m = await a.add('unchanged', { category: 'goal' });
    const { cursor } = await a.full();
    const res = await a.patch(m.id, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(ANY_ERROR);
    expect((await a.one(m.id)).body).toEqual({ memory: m });
    expect(await a.pull(cursor)).toEqual({ memories: [], deleted: [], cursor });
  });

  test('a body that is null or not an object: 400, nothing changed', async () => {
    const who = await member();
    const a = api(t, who);
    const m = await a.add('unchanged');
    for (const payload of ['null', '[]', '"content"', '7', '[{"content":"x"}]']) {
      const res = checked(
        await t.request(who, {
          method: 'PATCH',
          url: `${BASE}/${m.id}`,
          headers: { 'content-type': 'application/json' },
          payload,
        }),
      );
      expect(res.status, payload).toBe(400);
      expect(res.body).toEqual(ANY_ERROR);
    }
    expect((await a.one(m.id)).body).toEqual({ memory: m });
  });

  test('unknown id: 404; non-UUID id: 404; deleted: 404', async () => {
    const a = api(t, await member());
    const m = await a.add('to delete');
    await a.del(m.id);
    for (const id of [randomUUID(), 'nope', m.id]) {
      const res = await a.patch(id, { content: 'new' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    // A PATCH of a deleted memory does not bring it back.
    expect((await a.full()).memories).toEqual([]);
  });

  test('changes persist: content and category together', async () => {
    const a = api(t, await member());
    const m = await a.add('I am learning Spanish');
    const res = await a.patch(m.id, { content: 'I speak Spanish', category: 'identity' });
    expect(res.status).toBe(200);
    const updated = expectItem(memoryOf(res), {
      content: 'I speak Spanish',
      category: 'identity',
    });
    expect(updated.id).toBe(m.id);
    expect(res.body).toEqual({ memory: updated });
    expect((await a.one(m.id)).body).toEqual({ memory: updated });
    expect((await a.full()).memories).toEqual([updated]);
  });

  test('a patched content folds later adds under its new text, no longer under the old', async () => {
    const a = api(t, await member());
    const m = await a.add('I like tea');
    await a.patch(m.id, { content: 'I like coffee' });
    const fold = await a.post({ content: 'i like coffee.' });
    expect(fold.status).toBe(200);
    expect(fold.body).toEqual({ memory: { id: m.id, content: 'I like coffee' } });
    const fresh = await a.post({ content: 'I like tea' });
    expect(fresh.status).toBe(201);
  });

  test('baseUpdatedAt is accepted and ignored by default: a stale value still updates', async () => {
    const a = api(t, await member());
    const m = await a.add('first');
    await a.patch(m.id, { content: 'second' });
    const res = await a.patch(m.id, { content: 'third', baseUpdatedAt: m.updatedAt });
    expect(res.status).toBe(200);
    expectItem(memoryOf(res), { content: 'third' });
    const odd = await a.patch(m.id, {
      content: 'fourth',
      baseUpdatedAt: '1999-01-01T00:00:00.000Z',
    });
    expect(odd.status).toBe(200);
    expect(memoryOf(await a.one(m.id)).content).toBe('fourth');
  });

  describe('with MNEMO_OPTIMISTIC_CONCURRENCY=on', () => {
    let occ: TestApp;
    beforeAll(async () => {
      occ = await buildTestApp({ MNEMO_OPTIMISTIC_CONCURRENCY: 'on' });
    });
    afterAll(() => occ.close());

    test('a matching baseUpdatedAt updates', async () => {
      const a = api(occ, await member(occ));
      const m = await a.add('v1');
      const res = await a.patch(m.id, { content: 'v2', baseUpdatedAt: m.updatedAt });
      expect(res.status).toBe(200);
      const v2 = expectItem(memoryOf(res), { content: 'v2' });
      const res3 = await a.patch(m.id, { category: 'goal', baseUpdatedAt: v2.updatedAt });
      expect(res3.status).toBe(200);
      expectItem(memoryOf(res3), { content: 'v2', category: 'goal' });
    });

    test('a stale baseUpdatedAt: 409 with the current memory, nothing changed', async () => {
      const a = api(occ, await member(occ));
      const m = await a.add('v1');
      const current = memoryOf(await a.patch(m.id, { content: 'v2', category: 'goal' }));
      const { cursor } = await a.full();
      const res = await a.patch(m.id, { content: 'lost update', baseUpdatedAt: m.updatedAt });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: expect.stringMatching(/\S/), memory: current });
      expect(Object.keys(res.body as object).sort()).toEqual(['error', 'memory']);
      expect((await a.one(m.id)).body).toEqual({ memory: current });
      const pulled = await a.pull(cursor);
      expect(pulled.memories).toEqual([]);
      expect(pulled.deleted).toEqual([]);
    });

    test('of two concurrent PATCHes with the same baseUpdatedAt, one wins and one gets 409', async () => {
      const a = api(occ, await member(occ));
      const m = await a.add('v1');
      const answers = await Promise.all([
        a.patch(m.id, { content: 'left', baseUpdatedAt: m.updatedAt }),
        a.patch(m.id, { content: 'right', baseUpdatedAt: m.updatedAt }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const winner = memoryOf(answers.find((r) => r.status === 200) as Answer);
      const loser = answers.find((r) => r.status === 409) as Answer;
      expect(loser.body).toEqual({ error: expect.stringMatching(/\S/), memory: winner });
      expect((await a.one(m.id)).body).toEqual({ memory: winner });
    });

    test.each([
      'yesterday',
      '2026-01-01',
      '2026-13-45T99:00:00.000Z',
      '',
    ])('a malformed baseUpdatedAt (%j): 400', async (baseUpdatedAt) => {
      const a = api(occ, await member(occ));
      const m = await a.add('v1');
      const res = await a.patch(m.id, { content: 'v2', baseUpdatedAt });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(ANY_ERROR);
      expect((await a.one(m.id)).body).toEqual({ memory: m });
    });

    test('without baseUpdatedAt: 200', async () => {
      const a = api(occ, await member(occ));
      const m = await a.add('v1');
      await a.patch(m.id, { content: 'v2' });
      const res = await a.patch(m.id, { content: 'v3' });
      expect(res.status).toBe(200);
      expectItem(memoryOf(res), { content: 'v3' });
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('DELETE', () => {
  test('200 {ok:true}, again 200 {ok:true}; then GET 404, gone from the list, listed in deleted', async () => {
    const a = api(t, await member());
    const keep = await a.add('keep me');
    const gone = await a.add('delete me', { category: 'goal' });
    const { cursor } = await a.full();

    const first = await a.del(gone.id);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ok: true });
    const second = await a.del(gone.id);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ok: true });

    const got = await a.one(gone.id);
    expect(got.status).toBe(404);
    expect(got.body).toEqual(NOT_FOUND);
    expect((await a.full()).memories).toEqual([keep]);
    const pulled = await a.pull(cursor);
    expect(pulled.memories).toEqual([]);
    expect(pulled.deleted).toEqual([gone.id]);
  });

  test('a repeated delete changes nothing: the next pull is empty', async () => {
    const a = api(t, await member());
    const gone = await a.add('delete me');
    await a.del(gone.id);
    const { cursor } = await a.full();
    expect((await a.del(gone.id)).body).toEqual({ ok: true });
    expect(await a.pull(cursor)).toEqual({ memories: [], deleted: [], cursor });
  });

  test('unknown id: 404; non-UUID id: 404', async () => {
    const a = api(t, await member());
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const res = await a.del(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('list and incremental sync', () => {
  test('the full list has memories and cursor and no deleted key, oldest first', async () => {
    const a = api(t, await member());
    const empty = await a.full();
    expect(empty).toEqual({ memories: [], cursor: expect.stringMatching(/\S/) });
    const one = await a.add('one');
    const two = await a.add('two', { category: 'goal' });
    const gone = await a.add('three');
    await a.del(gone.id);
    const full = await a.full();
    expect(byId(full.memories)).toEqual(byId([one, two]));
    expect(full.cursor).not.toBe(empty.cursor);
  });

  test('a full list read again and again is exact after every kind of change', async () => {
    const a = api(t, await member());
    const expectList = async (expected: Item[]) => {
      // Twice: the second answer may come from the kept serialized list.
      for (let i = 0; i < 2; i++) {
        const full = await a.full();
        expect(byId(full.memories)).toEqual(byId(expected));
      }
    };
    await expectList([]);
    const one = await a.add('Likes jazz');
    await expectList([one]);
    const two = await a.add('Lives in Lisbon');
    await expectList([one, two]);
    const patched = memoryOf(await a.patch(one.id, { content: 'Likes modal jazz' }));
    await expectList([patched, two]);
    // A fold that brings a category changes the memory without adding one.
    await a.post({ content: 'lives in lisbon.', category: 'identity' });
    const folded = memoryOf(await a.one(two.id));
    expect(folded.category).toBe('identity');
    await expectList([patched, folded]);
    // A fold that changes nothing leaves the list (and its cursor) as it was.
    const before = await a.full();
    await a.post({ content: 'LIVES IN LISBON' });
    expect(await a.full()).toEqual(before);
    await a.del(patched.id);
    await expectList([folded]);
  });

  test('a pull has memories, deleted and cursor; without changes it is empty, again and again', async () => {
    const a = api(t, await member());
    await a.add('something');
    const { cursor } = await a.full();
    for (let i = 0; i < 3; i++) {
      expect(await a.pull(cursor)).toEqual({ memories: [], deleted: [], cursor });
    }
  });

  test('a pull reports exactly what changed since the cursor', async () => {
    const a = api(t, await member());
    const untouched = await a.add('untouched');
    const patched = await a.add('patched');
    const removed = await a.add('removed');
    const { cursor } = await a.full();

    const added = await a.add('added');
    const after = memoryOf(await a.patch(patched.id, { content: 'patched!', category: 'goal' }));
    await a.del(removed.id);

    const pulled = await a.pull(cursor);
    expect(byId(pulled.memories)).toEqual(byId([added, after]));
    expect(pulled.deleted).toEqual([removed.id]);
    expect(pulled.memories.map((m) => m.id)).not.toContain(untouched.id);

    // From the new cursor: nothing.
    expect(await a.pull(pulled.cursor)).toEqual({
      memories: [],
      deleted: [],
      cursor: pulled.cursor,
    });
  });

  test('a memory added then deleted between pulls appears only in deleted', async () => {
    const a = api(t, await member());
    const { cursor } = await a.full();
    const brief = await a.add('brief');
    await a.del(brief.id);
    expect(await a.pull(cursor)).toEqual({
      memories: [],
      deleted: [brief.id],
      cursor: expect.any(String),
    });
  });

  test("the spec's sync procedure keeps a client mirror equal to the full list", async () => {
    const a = api(t, await member());
    const mirror = new Map<string, Item>();
    const first = await a.full();
    for (const m of first.memories) mirror.set(m.id, m);
    let cursor = first.cursor;
    const sync = async () => {
      const pulled = await a.pull(cursor);
      for (const m of pulled.memories) mirror.set(m.id, m);
      for (const id of pulled.deleted) mirror.delete(id);
      cursor = pulled.cursor;
      expect(byId(mirror.values())).toEqual(byId((await a.full()).memories));
    };

    const items: Item[] = [];
    for (let i = 0; i < 6; i++)
      items.push(await a.add(`item ${i}`, i % 2 ? { category: 'goal' } : {}));
    await sync();
    const [i0, i1, i2, i3, i4, i5] = items as [Item, Item, Item, Item, Item, Item];
    await a.patch(i0.id, { content: 'item 0 edited' });
    await a.patch(i1.id, { category: null });
    await a.del(i2.id);
    await a.post({ content: 'ITEM 3', category: 'goal' }); // a fold that brings a category
    await a.add('item 6');
    await sync();
    await a.patch(i0.id, { content: 'item 0 edited twice' });
    await a.del(i0.id);
    await a.del(i4.id);
    const late = await a.add('item 7');
    await a.patch(late.id, { category: 'constraint' });
    await a.post({ content: 'item 5.' }); // a fold that changes nothing
    await sync();
    await sync();
    expect([...mirror.values()].map((m) => m.content).sort()).toEqual(
      ['item 1', 'item 3', 'item 5', 'item 6', 'item 7'].sort(),
    );
    expect(mirror.get(i3.id)?.category).toBe('goal');
    expect(mirror.has(i5.id)).toBe(true);
  });

  describe('invalid cursors: 400 invalid cursor', () => {
    const INVALID = { error: 'invalid cursor' };

    test.each([
      [
        'a flipped character',
        (c: string) => `${c.slice(0, 5)}${c[5] === 'A' ? 'B' : 'A'}${c.slice(6)}`,
      ],
      ['a flipped first character', (c: string) => `${c[0] === 'A' ? 'B' : 'A'}${c.slice(1)}`],
      ['truncated', (c: string) => c.slice(0, -3)],
      ['extended', (c: string) => `${c}AAAA`],
      ['garbage', () => 'hello-world'],
      ['not base64url', () => 'not a cursor!'],
      ['empty', () => ''],
      ['a number', () => '12'],
    ])('%s', async (_, edit) => {
      const a = api(t, await member());
      await a.add('something');
      const { cursor } = await a.full();
      const bad = edit(cursor);
      expect(bad).not.toBe(cursor);
      const res = await a.since(bad);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID);
    });

    test("another user's cursor, in the same organization", async () => {
      const alice = await member();
      const { cursor } = await api(t, alice).full();
      const res = await api(t, await colleague(alice)).since(cursor);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID);
    });

    test('a personal cursor used on a project pool, and a pool cursor on the personal store', async () => {
      const alice = await member();
      const a = api(t, alice);
      const project = await t.fixtures.project(alice.orgId, { [alice.userId]: 'editor' });
      const personal = (await a.full()).cursor;
      const pool = (await a.full(`?project=${project}`)).cursor;
      for (const res of [await a.since(personal, `&project=${project}`), await a.since(pool)]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual(INVALID);
      }
      // Each still works where it belongs.
      expect((await a.pull(pool, `&project=${project}`)).cursor).toBe(pool);
      expect((await a.pull(personal)).cursor).toBe(personal);
    });

    test('a cursor of one organization used in another by the same user', async () => {
      const alice = await member();
      const otherOrg = await t.fixtures.org();
      await t.fixtures.member(otherOrg, alice.userId);
      const { cursor } = await api(t, alice).full();
      const res = await api(t, { ...alice, orgId: otherOrg }).since(cursor);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID);
    });
  });

  test('a cursor survives a restart on the same store', async () => {
    const first = await buildTestApp();
    try {
      const alice = await member(first);
      const a = api(first, alice);
      const kept = await a.add('kept');
      const gone = await a.add('gone');
      const { cursor } = await a.full();
      await first.app.close();
      await first.database.close();

      const database = createDatabase(first.config.databaseUrl);
      const app = await buildApp({ config: first.config, database, logger: false });
      try {
        const restarted = api({ ...first, app, database, request: requestOn(app) }, alice);
        expect(await restarted.pull(cursor)).toEqual({ memories: [], deleted: [], cursor });
        await restarted.del(gone.id);
        const pulled = await restarted.pull(cursor);
        expect(pulled.memories).toEqual([]);
        expect(pulled.deleted).toEqual([gone.id]);
        expect((await restarted.full()).memories).toEqual([kept]);
      } finally {
        await app.close();
        await database.close();
      }
    } finally {
      await first.store.dispose();
    }
  });
});

function requestOn(app: TestApp['app']): TestApp['request'] {
  return (who, options) =>
    app.inject({
      ...options,
      headers: {
        authorization: `Bearer ${who.token}`,
        'x-organization-id': who.orgId,
        ...(options.headers ?? {}),
      },
    });
}

// ---------------------------------------------------------------------------------------------

describe('project pools', () => {
  async function pool() {
    const alice = await member();
    const project = await t.fixtures.project(alice.orgId, { [alice.userId]: 'editor' });
    return { alice, a: api(t, alice), project };
  }

  test('an add with project: 201, in the pool list, not in the personal list', async () => {
    const { alice, a, project } = await pool();
    const res = await a.post({ content: 'The API is versioned', category: 'project', project });
    expect(res.status).toBe(201);
    const m = expectItem(memoryOf(res), { content: 'The API is versioned', category: 'project' });
    expect(res.headers.location).toBe(`${BASE}/${m.id}`);
    expect((await a.full(`?project=${project}`)).memories).toEqual([m]);
    expect((await a.full()).memories).toEqual([]);

    // Every collaborator sees the pool, a viewer included.
    const viewer = await colleague(alice);
    await t.fixtures.grant(project, viewer.userId, 'viewer');
    expect((await api(t, viewer).full(`?project=${project}`)).memories).toEqual([m]);
    // The contributor reaches it by id.
    expect((await a.one(m.id)).body).toEqual({ memory: m });
  });

  test('a pool pull reports adds, patches and deletes by its contributor', async () => {
    const { a, project } = await pool();
    const m = await a.add('pooled', { project });
    const { cursor } = await a.full(`?project=${project}`);
    const patched = memoryOf(await a.patch(m.id, { content: 'pooled, edited' }));
    const other = await a.add('another', { project });
    let pulled = await a.pull(cursor, `&project=${project}`);
    expect(byId(pulled.memories)).toEqual(byId([patched, other]));
    expect(pulled.deleted).toEqual([]);
    await a.del(m.id);
    pulled = await a.pull(pulled.cursor, `&project=${project}`);
    expect(pulled).toEqual({ memories: [], deleted: [m.id], cursor: expect.any(String) });
  });

  test('project with user: 400 on GET and POST', async () => {
    const { alice, a, project } = await pool();
    const expected = { error: 'project cannot be combined with user' };
    for (const res of [
      await a.list(`?project=${project}&user=${alice.userId}`),
      await a.post({ content: 'x', project, user: alice.userId }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual(expected);
    }
    expect((await a.full(`?project=${project}`)).memories).toEqual([]);
    expect((await a.full()).memories).toEqual([]);
  });

  test('an unknown project: 404 on GET and POST', async () => {
    const { a } = await pool();
    const unknown = randomUUID();
    for (const res of [
      await a.list(`?project=${unknown}`),
      await a.post({ content: 'x', project: unknown }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(ANY_ERROR);
    }
  });

  test('a malformed project id: 400 on GET and POST', async () => {
    const { a } = await pool();
    for (const res of [
      await a.list('?project=not-a-uuid'),
      await a.post({ content: 'x', project: 'not-a-uuid' }),
      await a.post({ content: 'x', project: 42 }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual(ANY_ERROR);
    }
    expect((await a.full()).memories).toEqual([]);
  });

  test('a project of another organization: 404, even with access granted there', async () => {
    const { alice, a } = await pool();
    const otherOrg = await t.fixtures.org();
    const foreign = await t.fixtures.project(otherOrg, { [alice.userId]: 'editor' });
    for (const res of [
      await a.list(`?project=${foreign}`),
      await a.post({ content: 'x', project: foreign }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(ANY_ERROR);
    }
  });

  test('without access to list, or without editor access to add: 403', async () => {
    const { alice, project } = await pool();
    const outsider = api(t, await colleague(alice));
    const list = await outsider.list(`?project=${project}`);
    expect(list.status).toBe(403);
    expect(list.body).toEqual(ANY_ERROR);
    const viewer = await colleague(alice);
    await t.fixtures.grant(project, viewer.userId, 'viewer');
    const add = await api(t, viewer).post({ content: 'x', project });
    expect(add.status).toBe(403);
    expect(add.body).toEqual(ANY_ERROR);
  });
});

// ---------------------------------------------------------------------------------------------

describe('the memory feature switch', () => {
  async function everyEndpoint(a: Api, id: string) {
    return [
      await a.list(),
      await a.list(`?since=whatever`),
      await a.one(id),
      await a.post({ content: 'hello' }),
      await a.patch(id, { content: 'hello' }),
      await a.del(id),
    ];
  }

  test('an organization with memory switched off: 404 on every endpoint', async () => {
    const who = await member(t, { memoryEnabled: false });
    for (const res of await everyEndpoint(api(t, who), randomUUID())) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(FEATURE_OFF);
    }
  });

  test('production: only organizations whose flag is on', async () => {
    const prod = await buildTestApp({ MNEMO_ENV: 'production' });
    try {
      for (const org of [{}, { memoryEnabled: false }]) {
        for (const res of await everyEndpoint(api(prod, await member(prod, org)), randomUUID())) {
          expect(res.status).toBe(404);
          expect(res.body).toEqual(FEATURE_OFF);
        }
      }
      const a = api(prod, await member(prod, { memoryEnabled: true }));
      const m = await a.add('hello');
      expect((await a.full()).memories).toEqual([m]);
    } finally {
      await prod.close();
    }
  });

  test('staging behaves like sandbox: on unless switched off', async () => {
    const staging = await buildTestApp({ MNEMO_ENV: 'staging' });
    try {
      for (const org of [{}, { memoryEnabled: true }]) {
        const a = api(staging, await member(staging, org));
        const m = await a.add('hello');
        expect((await a.full()).memories).toEqual([m]);
      }
      for (const res of await everyEndpoint(
        api(staging, await member(staging, { memoryEnabled: false })),
        randomUUID(),
      )) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(FEATURE_OFF);
      }
    } finally {
      await staging.close();
    }
  });

  test('sandbox (the default): on for an organization that never set the flag', async () => {
    const a = api(t, await member());
    const m = await a.add('hello');
    expect((await a.full()).memories).toEqual([m]);
  });
});
