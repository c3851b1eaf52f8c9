/**
 * The client against the real server on a loopback port (the suite's engine): every memory
 * operation and its answer, acting for another member and for a project's pool, and the API's
 * refusals as MnemoError with their status and message.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type OAuthServer, startOAuthServer } from '../../../src/testing/oauth-server.ts';
import { Mnemo, MnemoError } from './index.ts';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: OAuthServer;
let orgId: string;
let me: { id: string; token: string };

beforeAll(async () => {
  server = await startOAuthServer({ MNEMO_OPTIMISTIC_CONCURRENCY: 'on' });
  orgId = await server.t.fixtures.org();
  me = await server.t.fixtures.user(orgId);
});
afterAll(() => server?.close());

const client = (token: string | (() => Promise<string>) = me.token, org = orgId) =>
  new Mnemo({ baseUrl: `${server.url}/`, organizationId: org, auth: token });

/** The MnemoError a call fails with. */
async function refusal(call: Promise<unknown>): Promise<MnemoError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MnemoError);
  return error as MnemoError;
}

describe('the memory operations', () => {
  test('add, get, update, list and sync, search, delete', async () => {
    const mnemo = client(await server.t.fixtures.token(me.id));
    const first = await mnemo.memories.list();
    expect(first).toEqual({ memories: [], cursor: expect.any(String) });

    const added = await mnemo.memories.add({
      content: 'Prefers tea over coffee',
      category: 'preference',
    });
    expect(added).toEqual({
      created: true,
      memory: {
        id: expect.stringMatching(UUID),
        content: 'Prefers tea over coffee',
        category: 'preference',
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP),
      },
    });
    if (!added.created) throw new Error('unreachable');
    const { memory } = added;

    expect(await mnemo.memories.get(memory.id)).toEqual(memory);

    const updated = await mnemo.memories.update(memory.id, {
      content: 'Prefers green tea',
      category: null,
    });
    expect(updated).toEqual({
      id: memory.id,
      content: 'Prefers green tea',
      createdAt: memory.createdAt,
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    expect(updated.updatedAt > memory.updatedAt).toBe(true);

    const all = await mnemo.memories.list();
    expect(all.memories).toEqual([updated]);
    expect(all.deleted).toBeUndefined();

    const other = await mnemo.memories.add({ content: 'Blocked on TICKET-4521', category: 'goal' });
    const found = await mnemo.memories.search({ q: 'ticket 4521', limit: 5 });
    expect(found).toEqual({
      memories: [{ ...other.memory, score: expect.any(Number) }],
      mode: 'lexical',
    });
    expect((await mnemo.memories.search({ q: 'ticket', category: 'preference' })).memories).toEqual(
      [],
    );

    await expect(mnemo.memories.delete(memory.id)).resolves.toBeUndefined();
    // Deleting it again is no error.
    await expect(mnemo.memories.delete(memory.id)).resolves.toBeUndefined();

    const changed = await mnemo.memories.list({ since: all.cursor });
    expect(changed).toEqual({
      memories: [other.memory],
      deleted: [memory.id],
      cursor: expect.any(String),
    });
    expect(await mnemo.memories.list({ since: changed.cursor })).toEqual({
      memories: [],
      deleted: [],
      cursor: changed.cursor,
    });
  });

  test('an add equal to a memory of the store is folded: created false, its id and content', async () => {
    const mnemo = client();
    const added = await mnemo.memories.add({ content: 'Walks to work' });
    expect(added.created).toBe(true);
    const folded = await mnemo.memories.add({ content: '  walks to WORK!' });
    expect(folded).toEqual({
      created: false,
      memory: { id: added.memory.id, content: 'Walks to work' },
    });
  });

  test('import answers each item; export streams the store with its cursor', async () => {
    const who = await server.t.fixtures.user(orgId);
    const mnemo = client(who.token);
    const imported = await mnemo.memories.import({
      memories: [
        {
          content: 'Prefers window seats',
          category: 'preference',
          createdAt: '2024-07-20T01:34:56.789-07:00',
        },
        { content: 'prefers window seats' },
        { content: 'Flies to Lisbon in May', createdAt: '2999-01-01T00:00:00Z' },
        { content: 'Speaks Portuguese' },
      ],
    });
    const seats = {
      id: expect.stringMatching(UUID),
      content: 'Prefers window seats',
      category: 'preference',
      createdAt: '2024-07-20T08:34:56.789Z',
      updatedAt: expect.stringMatching(TIMESTAMP),
    };
    expect(imported).toEqual({
      results: [
        { status: 'created', memory: seats },
        { status: 'folded', memory: seats },
        { status: 'invalid', error: 'createdAt must not be in the future' },
        { status: 'created', memory: expect.objectContaining({ content: 'Speaks Portuguese' }) },
      ],
      created: 2,
      folded: 1,
      invalid: 1,
    });

    const exported = await mnemo.memories.export();
    const lines = [];
    for await (const memory of exported) lines.push(memory);
    expect(lines).toEqual([imported.results[0]?.memory, imported.results[3]?.memory]);
    expect(() => exported[Symbol.asyncIterator]()).toThrow('an export can be iterated once');

    await mnemo.memories.add({ content: 'Reads on trains' });
    const since = await mnemo.memories.list({ since: exported.cursor });
    expect(since.memories.map((m) => m.content)).toEqual(['Reads on trains']);

    // Stopping early ends the stream; the client goes on as before.
    const again = await mnemo.memories.export();
    for await (const memory of again) {
      expect(memory.content).toBe('Prefers window seats');
      break;
    }
    expect((await mnemo.memories.list()).memories).toHaveLength(3);
  });

  test('erase deletes a store, or one category of it, and says how many', async () => {
    const who = await server.t.fixtures.user(orgId);
    const mnemo = client(who.token);
    await mnemo.memories.import({
      memories: [
        { content: 'Likes jazz', category: 'preference' },
        { content: 'Likes rain', category: 'preference' },
        { content: 'Runs a marathon in May', category: 'goal' },
      ],
    });
    expect(await mnemo.memories.erase({ category: 'preference' })).toEqual({
      ok: true,
      deleted: 2,
    });
    expect(await mnemo.memories.erase()).toEqual({ ok: true, deleted: 1 });
    expect(await mnemo.memories.erase()).toEqual({ ok: true, deleted: 0 });
  });

  test('a token getter is asked for each request', async () => {
    let asked = 0;
    const mnemo = client(async () => {
      asked++;
      return me.token;
    });
    await mnemo.memories.list();
    await mnemo.memories.list();
    expect(asked).toBe(2);
  });
});

describe('acting for others', () => {
  test("another member's store: user in the query of reads, changes and deletes, in the body of adds", async () => {
    const other = await server.t.fixtures.user(orgId);
    const mnemo = client();
    const user = other.id;
    const added = await mnemo.memories.add({ content: 'Takes the night train', user });
    expect(added.created).toBe(true);
    const { id } = added.memory;

    // Theirs, not mine.
    expect((await refusal(mnemo.memories.get(id))).status).toBe(404);
    expect(await mnemo.memories.get(id, { user })).toEqual(added.memory);
    expect((await client(other.token).memories.list()).memories).toEqual([added.memory]);
    expect((await mnemo.memories.list({ user })).memories).toEqual([added.memory]);
    expect((await mnemo.memories.search({ q: 'train', user })).memories).toHaveLength(1);

    const updated = await mnemo.memories.update(id, { category: 'preference' }, { user });
    expect(updated.category).toBe('preference');
    const imported = await mnemo.memories.import({ memories: [{ content: 'Owns a cat' }], user });
    expect(imported.created).toBe(1);
    const exported = [];
    for await (const memory of await mnemo.memories.export({ user })) exported.push(memory);
    expect(exported.map((m) => m.content).sort()).toEqual(['Owns a cat', 'Takes the night train']);

    await mnemo.memories.delete(id, { user });
    expect((await refusal(mnemo.memories.get(id, { user }))).status).toBe(404);
    expect(await mnemo.memories.erase({ user })).toEqual({ ok: true, deleted: 1 });
  });

  test("a project's pool: project in the query of the list, in the body of an add", async () => {
    const editor = await server.t.fixtures.user(orgId);
    const project = await server.t.fixtures.project(orgId, { [editor.id]: 'editor' });
    const mnemo = client(editor.token);
    const added = await mnemo.memories.add({ content: 'Ships on Fridays', project });
    expect(added.created).toBe(true);
    expect((await mnemo.memories.list({ project })).memories).toEqual([added.memory]);
    expect((await mnemo.memories.list()).memories).toEqual([]);
  });
});

describe('refusals are MnemoError with the status and message of the API', () => {
  test('400: a user who is no member, project with user, a change of nothing', async () => {
    const mnemo = client();
    const stranger = await refusal(mnemo.memories.list({ user: randomUUID() }));
    expect(stranger).toMatchObject({
      name: 'MnemoError',
      status: 400,
      message: 'user is not a member of this organization',
      body: { error: 'user is not a member of this organization' },
      retryAfter: undefined,
    });
    const project = await server.t.fixtures.project(orgId);
    expect(await refusal(mnemo.memories.add({ content: 'x', user: me.id, project }))).toMatchObject(
      { status: 400, message: 'project cannot be combined with user' },
    );
    const added = await mnemo.memories.add({ content: 'Cycles to work' });
    expect(await refusal(mnemo.memories.update(added.memory.id, {}))).toMatchObject({
      status: 400,
      message: 'at least one of content or category is required',
    });
  });

  test('403: a caller of another organization', async () => {
    const outsider = await server.t.fixtures.user(await server.t.fixtures.org());
    expect(await refusal(client(outsider.token).memories.list())).toMatchObject({
      status: 403,
      message: 'not a member of this organization',
    });
  });

  test('404: an unknown memory', async () => {
    expect(await refusal(client().memories.get(randomUUID()))).toMatchObject({
      status: 404,
      message: 'memory not found',
    });
  });

  test('409: a change since baseUpdatedAt carries the memory as it is now', async () => {
    const mnemo = client();
    const added = await mnemo.memories.add({ content: 'Learns the cello' });
    if (!added.created) throw new Error('unreachable');
    const now = await mnemo.memories.update(added.memory.id, { content: 'Learns the viola' });
    const conflict = await refusal(
      mnemo.memories.update(added.memory.id, {
        content: 'Learns the double bass',
        baseUpdatedAt: added.memory.updatedAt,
      }),
    );
    expect(conflict).toMatchObject({
      status: 409,
      message: 'the memory was changed by another writer since baseUpdatedAt',
    });
    expect(conflict.memory).toEqual(now);
  });

  test('401 for a refused credential; an aborted call rejects with its reason', async () => {
    expect(await refusal(client('not-a-token').memories.list())).toMatchObject({
      status: 401,
      message: 'malformed credential: not a signed JWT',
    });
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(client().memories.list({}, { signal: controller.signal })).rejects.toThrow(
      'stopped',
    );
  });
});
