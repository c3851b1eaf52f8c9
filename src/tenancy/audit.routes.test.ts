/**
 * `GET /api/v1/audit`: newest first, keyset pages with an opaque cursor, the memory API's
 * override records included, and the errors of its query.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { recordAudit } from '../audit/audit.repository.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { call } from '../testing/management-client.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Page {
  entries: { id: string; action: string; at: string; details?: unknown; memoryId?: string }[];
  next: string | null;
}

async function org() {
  const orgId = await t.fixtures.org();
  const owner = await t.fixtures.user(orgId, 'owner');
  const member = await t.fixtures.user(orgId, 'member');
  const read = (query = '') =>
    call(t, owner.token, 'GET', `/api/v1/audit${query}`, undefined, { 'x-organization-id': orgId });
  return { orgId, owner, member, read };
}

describe('paging', () => {
  test('pages of the requested size, newest first, every entry exactly once', async () => {
    const o = await org();
    for (let i = 0; i < 7; i++) {
      await recordAudit(t.database.db, {
        orgId: o.orgId,
        actorId: o.owner.id,
        targetId: o.member.id,
        action: `test.${i}`,
        details: { i },
      });
    }
    // Another organization's entries never show.
    const other = await t.fixtures.org();
    await recordAudit(t.database.db, {
      orgId: other,
      actorId: o.owner.id,
      targetId: o.owner.id,
      action: 'elsewhere',
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const answer = await o.read(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(answer.status).toBe(200);
      const page = answer.body as Page;
      sizes.push(page.entries.length);
      seen.push(...page.entries.map((e) => e.action));
      cursor = page.next;
    } while (cursor);
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(['test.6', 'test.5', 'test.4', 'test.3', 'test.2', 'test.1', 'test.0']);
    const first = (await o.read('?limit=1')).body as Page;
    expect(first.entries[0]).toEqual({
      id: expect.any(String),
      at: expect.stringMatching(/Z$/),
      actorId: o.owner.id,
      targetId: o.member.id,
      action: 'test.6',
      details: { i: 6 },
    });
  });

  test('a page exactly at the end has next null; an empty log answers no entries', async () => {
    const o = await org();
    expect((await o.read()).body).toEqual({ entries: [], next: null });
    await recordAudit(t.database.db, {
      orgId: o.orgId,
      actorId: o.owner.id,
      targetId: o.owner.id,
      action: 'one',
    });
    expect(((await o.read('?limit=1')).body as Page).next).toBeNull();
  });

  test('override records of the memory API are in it, with their memory id', async () => {
    const o = await org();
    const added = await call(
      t,
      o.owner.token,
      'POST',
      '/api/v1/memory',
      { content: 'for a colleague', user: o.member.id },
      { 'x-organization-id': o.orgId },
    );
    expect(added.status).toBe(201);
    const memoryId = (added.body as { memory: { id: string } }).memory.id;
    const page = (await o.read()).body as Page;
    expect(page.entries).toEqual([
      expect.objectContaining({ actorId: o.owner.id, targetId: o.member.id, memoryId }),
    ]);
    expect(page.entries[0]).not.toHaveProperty('details');
  });
});

describe('errors', () => {
  test.each(['0', '101', 'ten', '-1', '1.5'])('limit=%s: 400', async (limit) => {
    const o = await org();
    expect(await o.read(`?limit=${limit}`)).toEqual({
      status: 400,
      body: { error: 'limit must be an integer from 1 to 100' },
    });
  });

  test.each([
    'garbage!',
    'AAAA',
    Buffer.from('a1:x:y').toString('base64url'),
  ])('cursor %s: 400 invalid cursor', async (cursor) => {
    const o = await org();
    expect(await o.read(`?cursor=${cursor}`)).toEqual({
      status: 400,
      body: { error: 'invalid cursor' },
    });
  });

  test('an unknown query parameter: 400; no X-Organization-Id: 400; a member: 403', async () => {
    const o = await org();
    expect(await o.read('?page=2')).toEqual({
      status: 400,
      body: { error: 'unknown query parameter: page' },
    });
    expect(await call(t, o.owner.token, 'GET', '/api/v1/audit')).toEqual({
      status: 400,
      body: { error: 'X-Organization-Id is required' },
    });
    expect(
      await call(t, o.member.token, 'GET', '/api/v1/audit', undefined, {
        'x-organization-id': o.orgId,
      }),
    ).toEqual({ status: 403, body: { error: 'only owners and admins can read the audit log' } });
  });
});
