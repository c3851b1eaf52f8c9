/**
 * The text rule (storable-text.ts) through HTTP, on the suite's engine: NUL (which PostgreSQL
 * refuses in text) and unpaired UTF-16 surrogates (which no store keeps as sent) are a 400
 * naming the field wherever text reaches the store, on SQLite and PostgreSQL alike, and change
 * nothing; every other character, control characters and surrogate pairs included, is kept.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';

const MEMORY = '/api/v1/memory';
const NUL = 'must not contain NUL characters (U+0000)';
const SURROGATE = 'must not contain unpaired surrogates (U+D800 to U+DFFF)';

/** Values that break the rule, and why. */
const REFUSED: ReadonlyArray<readonly [label: string, value: string, problem: string]> = [
  ['a NUL inside', 'before\u0000after', NUL],
  ['a NUL alone', '\u0000', NUL],
  ['a NUL at the end', 'text\u0000', NUL],
  ['a lone high surrogate', 'a\ud800b', SURROGATE],
  ['a lone low surrogate', 'a\udc00b', SURROGATE],
  ['a pair in the wrong order', '\udc00\ud800', SURROGATE],
  ['a high surrogate at the end', 'smile \ud83d', SURROGATE],
];

let t: TestApp;
let who: { token: string; orgId: string };

beforeAll(async () => {
  t = await buildTestApp();
  const orgId = await t.fixtures.org({ name: 'Acme' });
  const owner = await t.fixtures.user(orgId, 'owner');
  who = { token: owner.token, orgId };
});
afterAll(() => t.close());

async function send(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object | string) {
  const res = await t.request(who, {
    method,
    url,
    ...(payload === undefined ? {} : { payload, headers: { 'content-type': 'application/json' } }),
  });
  return answer(res);
}

function answer(res: LightMyRequestResponse) {
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

/** Sends every refused value in `field` and expects the 400 naming it, for each. */
async function expectRefused(
  field: string,
  request: (value: string) => Promise<{ status: number; body: unknown }>,
) {
  for (const [label, value, problem] of REFUSED) {
    const a = await request(value);
    expect({ label, ...a }).toStrictEqual({
      label,
      status: 400,
      body: { error: `${field} ${problem}` },
    });
  }
}

describe('memory content', () => {
  test('POST: 400 naming content; nothing is stored', async () => {
    await expectRefused('content', (content) => send('POST', MEMORY, { content }));
    expect((await send('GET', MEMORY)).body.memories).toStrictEqual([]);
  });

  test('POST as raw JSON escapes ("\\u0000", "\\ud800"): the same 400s', async () => {
    expect(await send('POST', MEMORY, '{"content":"a\\u0000b"}')).toStrictEqual({
      status: 400,
      body: { error: `content ${NUL}` },
    });
    expect(await send('POST', MEMORY, '{"content":"a\\ud800b"}')).toStrictEqual({
      status: 400,
      body: { error: `content ${SURROGATE}` },
    });
    expect((await send('GET', MEMORY)).body.memories).toStrictEqual([]);
  });

  test('PATCH: 400 naming content; the memory is unchanged, updatedAt included', async () => {
    const added = await send('POST', MEMORY, { content: 'unchanged' });
    expect(added.status).toBe(201);
    const memory = added.body.memory as { id: string };
    await expectRefused('content', (content) =>
      send('PATCH', `${MEMORY}/${memory.id}`, { content }),
    );
    expect((await send('GET', `${MEMORY}/${memory.id}`)).body).toStrictEqual({ memory });
  });

  test('every other character is text: control characters and surrogate pairs are kept as sent', async () => {
    const content = 'tab\there, bell \u0007, \u0001, \uffff, emoji 😀 and 𝄞';
    const added = await send('POST', MEMORY, { content });
    expect(added.status).toBe(201);
    const memory = added.body.memory as { id: string; content: string };
    expect(memory.content).toBe(content);
    expect((await send('GET', `${MEMORY}/${memory.id}`)).body).toStrictEqual({ memory });
    const listed = (await send('GET', MEMORY)).body.memories as unknown[];
    expect(listed).toContainEqual(memory);
  });
});

describe('query values', () => {
  test('since, the audit cursor and user: 400 naming the parameter and the rule, checked before any other', async () => {
    expect(await send('GET', `${MEMORY}?since=%00`)).toStrictEqual({
      status: 400,
      body: { error: `since ${NUL}` },
    });
    expect(await send('GET', `/api/v1/audit?cursor=a%00`)).toStrictEqual({
      status: 400,
      body: { error: `cursor ${NUL}` },
    });
    expect(await send('GET', `${MEMORY}?user=%00`)).toStrictEqual({
      status: 400,
      body: { error: `user ${NUL}` },
    });
  });

  test('an id in the path holding a NUL is an unknown id, as any other non-UUID', async () => {
    expect(await send('GET', `${MEMORY}/%00`)).toStrictEqual({
      status: 404,
      body: { error: 'memory not found' },
    });
    expect(await send('PATCH', `${MEMORY}/a%00b`, { content: 'x' })).toStrictEqual({
      status: 404,
      body: { error: 'memory not found' },
    });
  });
});

describe('names and emails of the platform API', () => {
  test('an API key name: 400; no key is made', async () => {
    await expectRefused('name', (name) => send('POST', '/api/v1/api-keys', { name }));
    expect((await send('GET', '/api/v1/api-keys')).body).toStrictEqual({ keys: [] });
  });

  test('an organization name: 400; the name stays', async () => {
    const url = `/api/v1/orgs/${who.orgId}`;
    await expectRefused('name', (name) => send('PATCH', url, { name }));
    expect((await send('GET', url)).body.organization).toMatchObject({ name: 'Acme' });
  });

  test('a project name, on create and on rename: 400; nothing is made or renamed', async () => {
    const projects = `/api/v1/orgs/${who.orgId}/projects`;
    await expectRefused('name', (name) => send('POST', projects, { name }));
    expect((await send('GET', projects)).body).toStrictEqual({ projects: [] });
    const made = await send('POST', projects, { name: 'Atlas' });
    expect(made.status).toBe(201);
    const project = made.body.project as { id: string };
    await expectRefused('name', (name) =>
      send('PATCH', `/api/v1/projects/${project.id}`, { name }),
    );
    expect((await send('GET', projects)).body).toStrictEqual({ projects: [project] });
  });

  test('a member email: 400 before any lookup; the members stay', async () => {
    const members = `/api/v1/orgs/${who.orgId}/members`;
    const before = await send('GET', members);
    await expectRefused('email', (email) => send('POST', members, { email: `a${email}@x.test` }));
    expect(await send('GET', members)).toStrictEqual(before);
  });
});
