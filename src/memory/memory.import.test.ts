/**
 * POST /api/v1/memory/import through HTTP, on the suite's engine: each item an add, checked alone
 * and answered in order; the body as a whole refused with nothing stored; one write whose
 * memories later pulls carry; a store's access rules as an add's; and the budget of imported
 * memories per account and minute.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listAudit } from '../audit/audit.repository.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { clearOfMinuteEnd } from '../testing/rate-window.ts';
import { recountedSearchCounts, searchCounts } from '../testing/search-counts.ts';

const BASE = '/api/v1/memory';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

type Who = Awaited<ReturnType<TestApp['fixtures']['caller']>>;
const member = (app = t, orgId?: string, role?: 'owner' | 'member') =>
  app.fixtures.caller(orgId, role);

const importing = (who: Who, payload: unknown, app = t) =>
  app.request(who, { method: 'POST', url: `${BASE}/import`, payload: payload as object });

async function contents(who: Who, query = '') {
  const res = await t.request(who, { method: 'GET', url: `${BASE}${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().memories as { content: string }[]).map((m) => m.content);
}

test('each item as an add, in order: created, folded into the store and into earlier items, invalid alone', async () => {
  const who = await member();
  const stored = await t.request(who, {
    method: 'POST',
    url: BASE,
    payload: { content: 'Already remembered' },
  });
  expect(stored.statusCode, stored.body).toBe(201);
  const before = Date.now();
  const res = await importing(who, {
    memories: [
      {
        content: 'Flies to Lisbon in May',
        category: 'goal',
        createdAt: '2024-07-20T01:34:56.789123-07:00',
      },
      { content: 'already remembered' },
      { content: '   ' },
      { content: 'Prefers window seats', category: 'not-a-category' },
      { content: 'FLIES TO LISBON IN MAY' },
      { content: 'Likes tea', mood: 'calm' },
      'Likes coffee',
      { content: 'Moved to Porto', createdAt: '2999-01-01T00:00:00Z' },
      { content: 'Moved to Porto', createdAt: '2024-02-30T00:00:00Z' },
      { content: 'Moved to Porto', createdAt: '2024-03-01T00:00:00' },
      { content: 42 },
      { category: 'goal' },
    ],
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  const body = res.json();
  expect(body).toMatchObject({ created: 2, folded: 2, invalid: 8 });
  const results = body.results as {
    status: string;
    memory?: Record<string, string>;
    error?: string;
  }[];
  expect(results.map((r) => r.status)).toEqual([
    'created',
    'folded',
    'invalid',
    'created',
    'folded',
    'invalid',
    'invalid',
    'invalid',
    'invalid',
    'invalid',
    'invalid',
    'invalid',
  ]);
  expect(results.map((r) => r.error)).toEqual([
    undefined,
    undefined,
    'content is required',
    undefined,
    undefined,
    'unknown field: mood',
    'an item must be an object with content',
    'createdAt must not be in the future',
    'createdAt must be a date-time with its offset, like 2026-11-22T09:30:00.000Z',
    'createdAt must be a date-time with its offset, like 2026-11-22T09:30:00.000Z',
    'content must be a string',
    'content is required',
  ]);
  const [lisbon, again, , seats, foldedLisbon] = results;
  // The original's time is kept, to the millisecond; the import's own is when it changed.
  expect(lisbon?.memory).toMatchObject({
    content: 'Flies to Lisbon in May',
    category: 'goal',
    createdAt: '2024-07-20T08:34:56.789Z',
  });
  expect(Date.parse(lisbon?.memory?.updatedAt as string)).toBeGreaterThanOrEqual(before);
  expect(again?.memory).toMatchObject({
    id: stored.json().memory.id,
    content: 'Already remembered',
  });
  expect(seats?.memory).toMatchObject({ content: 'Prefers window seats' });
  expect(seats?.memory).not.toHaveProperty('category');
  expect(foldedLisbon?.memory).toEqual(lisbon?.memory);
  expect(await contents(who)).toEqual([
    'Flies to Lisbon in May',
    'Already remembered',
    'Prefers window seats',
  ]);
});

test('an import is one write: a pull after it carries every memory it created, and search finds them', async () => {
  const who = await member();
  const first = await t.request(who, { method: 'GET', url: BASE });
  const cursor = first.json().cursor as string;
  const res = await importing(who, {
    memories: Array.from({ length: 300 }, (_, i) => ({ content: `Imported note ${i}` })),
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ created: 300, folded: 0, invalid: 0 });
  const pulled = await t.request(who, {
    method: 'GET',
    url: `${BASE}?since=${encodeURIComponent(cursor)}`,
  });
  expect(pulled.statusCode, pulled.body).toBe(200);
  const memories = pulled.json().memories as { content: string }[];
  expect(memories.map((m) => m.content).sort()).toEqual(
    Array.from({ length: 300 }, (_, i) => `Imported note ${i}`).sort(),
  );
  const found = await t.request(who, { method: 'GET', url: `${BASE}/search?q=note+217` });
  expect(found.json().memories[0].content).toBe('Imported note 217');
  // The store's search counts, kept by the import itself on PostgreSQL, are what it holds.
  expect(await searchCounts(t.database, who.userId)).toEqual({ memories: 300, terms: 1200 });
  expect(await recountedSearchCounts(t.database, who.userId)).toEqual({
    memories: 300,
    terms: 1200,
  });
});

test('a full import of long memories fits its body limit (16 MiB, beside the API’s 64 KiB); a larger body is a 413 that stores nothing', async () => {
  const who = await member();
  const long = (i: number) =>
    `Memory ${i}: ${'a long account of what the user said. '.repeat(200)}`;
  const full = { memories: Array.from({ length: 1000 }, (_, i) => ({ content: long(i) })) };
  expect(JSON.stringify(full).length).toBeGreaterThan(7 * 1024 * 1024);
  const res = await importing(who, full);
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ created: 1000, folded: 0, invalid: 0 });

  const other = await member();
  const tooLarge = {
    memories: Array.from({ length: 1000 }, (_, i) => ({
      content: `${long(i)}${long(i)}${long(i)}`,
    })),
  };
  expect(JSON.stringify(tooLarge).length).toBeGreaterThan(16 * 1024 * 1024);
  const refused = await importing(other, tooLarge);
  expect(refused.statusCode).toBe(413);
  expect(refused.json()).toEqual({ error: 'request body is too large: at most 16 MiB' });
  expect(await contents(other)).toEqual([]);
});

describe('a body that is invalid as a whole: 400, nothing stored', () => {
  test.each([
    ['no memories', {}, 'memories is required'],
    ['an empty list', { memories: [] }, 'memories must hold at least 1 item'],
    [
      'more than 1,000',
      { memories: Array.from({ length: 1001 }, (_, i) => ({ content: `m ${i}` })) },
      'memories must hold at most 1000 items',
    ],
    ['an unknown field', { memories: [{ content: 'x' }], source: 'mem0' }, 'unknown field: source'],
    [
      'a NUL in an item',
      { memories: [{ content: 'fine' }, { content: 'a\u0000b' }] },
      'memories.1.content must not contain NUL characters (U+0000)',
    ],
  ])('%s', async (_name, payload, error) => {
    const who = await member();
    const res = await importing(who, payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ error });
    expect(await contents(who)).toEqual([]);
  });

  test('user and project go in the body, as for an add', async () => {
    const who = await member();
    const res = await t.request(who, {
      method: 'POST',
      url: `${BASE}/import?user=${who.userId}`,
      payload: { memories: [{ content: 'x' }] },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      error: 'query parameter user is not accepted on POST: send "user" in the body',
    });
  });

  test('GET is not an import: 405 with Allow', async () => {
    const who = await member();
    const res = await t.request(who, { method: 'GET', url: `${BASE}/import` });
    expect(res.statusCode, res.body).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});

describe("a store's rules, as an add's", () => {
  test('an owner imports for a member, audited per memory; a member may not', async () => {
    const owner = await member(t, await t.fixtures.org({ userOverride: 'admins' }), 'owner');
    const other = await member(t, owner.orgId);
    const res = await importing(owner, {
      user: other.userId,
      memories: [{ content: 'Speaks Portuguese' }, { content: 'Runs on Sundays' }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await contents(other)).toEqual(['Speaks Portuguese', 'Runs on Sundays']);
    const audit = await listAudit(t.database.db, owner.orgId, 10);
    expect(
      audit.filter((row) => row.action === 'add' && row.target_id === other.userId),
    ).toHaveLength(2);

    const refused = await importing(other, { user: owner.userId, memories: [{ content: 'x' }] });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(await contents(owner)).toEqual([]);
  });

  test("a project's pool needs editor access", async () => {
    const owner = await member(t, undefined, 'owner');
    const reader = await member(t, owner.orgId);
    const editor = await member(t, owner.orgId);
    const project = await t.fixtures.project(owner.orgId, {
      [owner.userId]: 'owner',
      [reader.userId]: 'viewer',
      [editor.userId]: 'editor',
    });
    const refused = await importing(reader, {
      project,
      memories: [{ content: 'Deploys on Fridays' }],
    });
    expect(refused.statusCode, refused.body).toBe(403);
    const res = await importing(editor, { project, memories: [{ content: 'Deploys on Fridays' }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(await contents(owner, `?project=${project}`)).toEqual(['Deploys on Fridays']);
  });
});

test('the budget of imported memories: refused whole with Retry-After past it, nothing stored; counted once a store is known', async () => {
  await clearOfMinuteEnd(20_000);
  const limited = await buildTestApp({
    MNEMO_RATE_LIMIT_PER_MINUTE: '60',
    MNEMO_IMPORT_ITEMS_PER_MINUTE: '1000',
  });
  try {
    const who = await member(limited);
    const batch = (n: number, tag: string) => ({
      memories: Array.from({ length: n }, (_, i) => ({ content: `${tag} ${i}` })),
    });
    // Refused for its store: no items counted.
    const forbidden = await importing(
      who,
      { user: '00000000-0000-4000-8000-000000000000', ...batch(900, 'a') },
      limited,
    );
    expect(forbidden.statusCode, forbidden.body).toBe(400);
    expect((await importing(who, batch(600, 'a'), limited)).statusCode).toBe(200);
    const refused = await importing(who, batch(600, 'b'), limited);
    expect(refused.statusCode, refused.body).toBe(429);
    expect(refused.json().error).toMatch(
      /^rate limit exceeded: too many memories imported; retry in \d+ s$/,
    );
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers.ratelimit).toMatch(/^"import-items";r=400;t=\d+$/);
    expect((await importing(who, batch(400, 'c'), limited)).statusCode).toBe(200);
    const res = await limited.request(who, { method: 'GET', url: BASE });
    const stored = (res.json().memories as { content: string }[]).map((m) => m.content);
    expect(stored).toHaveLength(1000);
    expect(stored.some((content) => content.startsWith('b '))).toBe(false);
  } finally {
    await limited.close();
  }
});

/** An item as a client might send it: from few texts (so that some fold), some of them invalid. */
const itemArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        content: fc.constantFrom(
          'Likes tea',
          'likes TEA',
          'Runs on Sundays',
          'Lives in Porto',
          ' ',
        ),
        category: fc.constantFrom('preference', 'goal', 'nonsense', null),
      },
      { requiredKeys: ['content'] },
    ),
  },
  { weight: 1, arbitrary: fc.constant({ content: 'Likes tea', colour: 'green' }) },
  { weight: 1, arbitrary: fc.constant('Likes tea') },
);

test('property: an import answers and stores what the same items added one by one would', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(itemArb, { minLength: 1, maxLength: 12 }), async (items) => {
      const imported = await member();
      const added = await member();
      const res = await importing(imported, { memories: items });
      expect(res.statusCode, res.body).toBe(200);
      const statuses: string[] = [];
      for (const item of items) {
        const one = await t.request(added, { method: 'POST', url: BASE, payload: item as object });
        statuses.push(
          one.statusCode === 201 ? 'created' : one.statusCode === 200 ? 'folded' : 'invalid',
        );
      }
      const results = res.json().results as { status: string }[];
      expect(results.map((r) => r.status)).toEqual(statuses);
      const stored = async (who: Who) => {
        const list = await t.request(who, { method: 'GET', url: BASE });
        return (list.json().memories as { content: string; category?: string }[]).map((m) => [
          m.content,
          m.category ?? null,
        ]);
      };
      expect(await stored(imported)).toEqual(await stored(added));
    }),
    { numRuns: 30 },
  );
}, 120_000);
