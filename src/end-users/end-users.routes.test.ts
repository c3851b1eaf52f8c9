/**
 * End users through HTTP: registered under the app's own id (idempotently), read, listed a page
 * at a time and searched, erased; who may; every bad input a 400 that says what; and an end
 * user as the memory API's `user`, like any member.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { auditTrail, call } from '../testing/management-client.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function org(options: { userOverride?: 'members' | 'admins' } = {}) {
  const orgId = await t.fixtures.org({ name: 'Acme', ...options });
  const owner = await t.fixtures.user(orgId, 'owner');
  const admin = await t.fixtures.user(orgId, 'admin');
  const member = await t.fixtures.user(orgId, 'member');
  const base = `/api/v1/orgs/${orgId}/end-users`;
  return {
    orgId,
    owner,
    admin,
    member,
    base,
    one: (id: string) => `${base}/${encodeURIComponent(id)}`,
  };
}

const put = (token: string, url: string, body?: object) => call(t, token, 'PUT', url, body);

describe('registering', () => {
  test('201 with the end user, then 200 with the same one; a name sent replaces the one held', async () => {
    const o = await org();
    const first = await put(o.owner.token, o.one('customer-42'), { name: 'Jane Doe' });
    expect(first).toEqual({
      status: 201,
      body: {
        endUser: {
          id: expect.stringMatching(UUID),
          externalId: 'customer-42',
          name: 'Jane Doe',
          createdAt: expect.stringMatching(TIMESTAMP),
        },
      },
    });
    const { endUser } = first.body as { endUser: { id: string; createdAt: string } };
    expect(await put(o.owner.token, o.one('customer-42'))).toEqual({
      status: 200,
      body: {
        endUser: {
          id: endUser.id,
          externalId: 'customer-42',
          name: 'Jane Doe',
          createdAt: endUser.createdAt,
        },
      },
    });
    expect(await put(o.admin.token, o.one('customer-42'), { name: '  Jane Smith ' })).toEqual({
      status: 200,
      body: {
        endUser: {
          id: endUser.id,
          externalId: 'customer-42',
          name: 'Jane Smith',
          createdAt: endUser.createdAt,
        },
      },
    });
    expect(await call(t, o.owner.token, 'GET', o.one('customer-42'))).toEqual({
      status: 200,
      body: {
        endUser: {
          id: endUser.id,
          externalId: 'customer-42',
          name: 'Jane Smith',
          createdAt: endUser.createdAt,
          memories: { own: 0, pools: 0 },
        },
      },
    });
    expect(await auditTrail(t, o.orgId)).toEqual([
      { actorId: o.owner.id, targetId: endUser.id, action: 'end_user.register' },
      { actorId: o.admin.id, targetId: endUser.id, action: 'end_user.update' },
    ]);
  });

  test('with no body at all, and with any characters of an id, percent-encoded', async () => {
    const o = await org();
    for (const externalId of ['a/b?c#d', 'user@example.com', 'ümlaut 東京 🙂', ' spaced ', '%41']) {
      const res = await t.app.inject({
        method: 'PUT',
        url: o.one(externalId),
        headers: { authorization: `Bearer ${o.owner.token}` },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().endUser).toEqual({
        id: expect.stringMatching(UUID),
        externalId,
        createdAt: expect.stringMatching(TIMESTAMP),
      });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    // 200 characters is the longest.
    expect((await put(o.owner.token, o.one('x'.repeat(200)))).status).toBe(201);
    expect((await put(o.owner.token, o.one('🙂'.repeat(200)))).status).toBe(201);
  });

  test('every bad input is a 400 that says what, and registers no one', async () => {
    const o = await org();
    const cases: [string, object | undefined, string][] = [
      ['x'.repeat(201), undefined, 'externalId must be 1 to 200 characters'],
      ['a\u0001b', undefined, 'externalId must not contain control characters'],
      ['tab\there', undefined, 'externalId must not contain control characters'],
      ['del\u007f', undefined, 'externalId must not contain control characters'],
      ['c1\u0085', undefined, 'externalId must not contain control characters'],
      ['ok', { name: '' }, 'name must not be blank'],
      ['ok', { name: '   ' }, 'name must not be blank'],
      ['ok', { name: 'n'.repeat(201) }, 'name must be at most 200 characters'],
      ['ok', { name: 7 }, 'name must be a string'],
      ['ok', { nick: 'x' }, 'unknown field: nick'],
      ['ok', { name: 'a\u0000b' }, 'name must not contain NUL characters (U+0000)'],
    ];
    for (const [externalId, body, error] of cases) {
      const answer = await put(o.owner.token, o.one(externalId), body);
      expect({ externalId, ...answer }).toEqual({ externalId, status: 400, body: { error } });
    }
    const text = await t.app.inject({
      method: 'PUT',
      url: o.one('ok'),
      headers: { authorization: `Bearer ${o.owner.token}`, 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toEqual({ error: 'Content-Type must be application/json' });
    const malformed = await t.app.inject({
      method: 'PUT',
      url: o.one('ok'),
      headers: { authorization: `Bearer ${o.owner.token}`, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(malformed.statusCode).toBe(400);
    expect((await call(t, o.owner.token, 'GET', o.base)).body).toMatchObject({ total: 0 });
    // The path without an id is the list, which takes no PUT.
    expect((await put(o.owner.token, `${o.base}/`)).status).toBeGreaterThanOrEqual(400);
  });

  test('any number of concurrent PUTs of one id make one end user and exactly one 201', async () => {
    const o = await org();
    await fc.assert(
      fc.asyncProperty(
        fc
          .string({ minLength: 1, maxLength: 40, unit: 'grapheme' })
          .filter((s) => !/\p{Cc}/u.test(s)),
        fc.integer({ min: 2, max: 12 }),
        fc.boolean(),
        async (base, count, named) => {
          const externalId = `${base}-${crypto.randomUUID()}`;
          const answers = await Promise.all(
            Array.from({ length: count }, (_, i) =>
              put(o.owner.token, o.one(externalId), named ? { name: `name ${i % 2}` } : undefined),
            ),
          );
          expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
          expect(answers.every((a) => a.status === 201 || a.status === 200)).toBe(true);
          const ids = new Set(
            answers.map((a) => (a.body as { endUser: { id: string } }).endUser.id),
          );
          expect(ids.size).toBe(1);
          const rows = await t.database.db
            .selectFrom('end_users')
            .select('user_id')
            .where('org_id', '=', o.orgId)
            .where('external_id', '=', externalId)
            .execute();
          expect(rows.map((r) => r.user_id)).toEqual([...ids]);
          // No identity was left behind by the requests that lost the race.
          const members = await t.database.db
            .selectFrom('users')
            .innerJoin('memberships', 'memberships.user_id', 'users.id')
            .select('users.id')
            .where('memberships.org_id', '=', o.orgId)
            .where('users.kind', '=', 'end_user')
            .execute();
          const orphans = await t.database.db
            .selectFrom('users')
            .leftJoin('memberships', 'memberships.user_id', 'users.id')
            .select('users.id')
            .where('users.kind', '=', 'end_user')
            .where('memberships.user_id', 'is', null)
            .where('users.status', '!=', 'erased')
            .execute();
          expect(orphans).toEqual([]);
          expect(members.some((m) => ids.has(m.id))).toBe(true);
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('reading and listing', () => {
  test('unknown: 404; the list newest first, a page at a time, with the total', async () => {
    const o = await org();
    expect(await call(t, o.owner.token, 'GET', o.one('nobody'))).toEqual({
      status: 404,
      body: { error: 'end user not found' },
    });
    const made: string[] = [];
    for (const [id, name] of [
      ['alpha-1', 'Zoë Adams'],
      ['alpha-2', undefined],
      ['Beta-1', 'alfred Brown'],
      ['gamma', 'Gustav'],
      ['delta', 'ÉMILE'],
    ] as const) {
      await put(o.owner.token, o.one(id), name === undefined ? undefined : { name });
      made.push(id);
    }
    const all = await call(t, o.owner.token, 'GET', o.base);
    expect(all.status).toBe(200);
    const listed = all.body as {
      endUsers: { externalId: string }[];
      total: number;
      cursor?: string;
    };
    expect(listed.endUsers.map((u) => u.externalId)).toEqual([...made].reverse());
    expect(listed.total).toBe(5);
    expect(listed.cursor).toBeUndefined();

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call(
        t,
        o.owner.token,
        'GET',
        `${o.base}?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      const body = page.body as {
        endUsers: { externalId: string }[];
        total: number;
        cursor?: string;
      };
      expect(body.total).toBe(5);
      expect(body.endUsers.length).toBeLessThanOrEqual(2);
      seen.push(...body.endUsers.map((u) => u.externalId));
      cursor = body.cursor;
    } while (cursor);
    expect(seen).toEqual([...made].reverse());

    const search = async (q: string) => {
      const body = (await call(t, o.owner.token, 'GET', `${o.base}?q=${encodeURIComponent(q)}`))
        .body as { endUsers: { externalId: string }[]; total: number };
      return { ids: body.endUsers.map((u) => u.externalId), total: body.total };
    };
    // By external id or by name, from its start, whatever the letter case.
    expect(await search('alpha')).toEqual({ ids: ['alpha-2', 'alpha-1'], total: 2 });
    expect(await search('AL')).toEqual({ ids: ['Beta-1', 'alpha-2', 'alpha-1'], total: 3 });
    expect(await search('beta')).toEqual({ ids: ['Beta-1'], total: 1 });
    expect(await search('zoë')).toEqual({ ids: ['alpha-1'], total: 1 });
    expect(await search('émile')).toEqual({ ids: ['delta'], total: 1 });
    expect(await search('amma')).toEqual({ ids: [], total: 0 });
    expect(await search('%')).toEqual({ ids: [], total: 0 });
    expect(await search('_')).toEqual({ ids: [], total: 0 });
  });

  test('a bad limit or cursor is a 400', async () => {
    const o = await org();
    for (const query of ['limit=0', 'limit=201', 'limit=x', 'limit=-1']) {
      expect(await call(t, o.owner.token, 'GET', `${o.base}?${query}`)).toEqual({
        status: 400,
        body: { error: 'limit must be an integer from 1 to 200' },
      });
    }
    for (const cursor of ['x', 'YTE6MToy', '!!!']) {
      expect(await call(t, o.owner.token, 'GET', `${o.base}?cursor=${cursor}`)).toEqual({
        status: 400,
        body: { error: 'invalid cursor' },
      });
    }
    expect((await call(t, o.owner.token, 'GET', `${o.base}?sort=name`)).status).toBe(400);
  });
});

describe('who may', () => {
  test('owners and admins; a member 403; another organization 403; no such organization 404', async () => {
    const o = await org();
    const stranger = await t.fixtures.user(await t.fixtures.org(), 'owner');
    const refusals = [
      ['PUT', o.one('x')],
      ['GET', o.one('x')],
      ['GET', o.base],
      ['DELETE', o.one('x')],
    ] as const;
    for (const [method, url] of refusals) {
      expect(await call(t, o.member.token, method, url)).toEqual({
        status: 403,
        body: { error: expect.stringMatching(/^only owners and admins can /) },
      });
      expect(await call(t, stranger.token, method, url)).toEqual({
        status: 403,
        body: { error: 'not a member of this organization' },
      });
    }
    expect(
      (await call(t, o.owner.token, 'GET', `/api/v1/orgs/${crypto.randomUUID()}/end-users`)).status,
    ).toBe(404);
    expect((await call(t, o.owner.token, 'POST', o.base, {})).status).toBe(405);
  });
});

describe('an end user is a member for the memory API', () => {
  test('reached with `user`, as the organization allows; not a person of Members', async () => {
    const o = await org();
    const { endUser } = (await put(o.owner.token, o.one('c-1'), { name: 'Jane' })).body as {
      endUser: { id: string };
    };
    const added = await t.request(
      { token: o.admin.token, orgId: o.orgId },
      {
        method: 'POST',
        url: '/api/v1/memory',
        payload: { content: 'Prefers tea', user: endUser.id },
      },
    );
    expect(added.statusCode).toBe(201);
    const listed = await t.request(
      { token: o.member.token, orgId: o.orgId },
      { method: 'GET', url: `/api/v1/memory?user=${endUser.id}` },
    );
    expect(listed.json().memories.map((m: { content: string }) => m.content)).toEqual([
      'Prefers tea',
    ]);
    expect((await call(t, o.owner.token, 'GET', o.one('c-1'))).body).toMatchObject({
      endUser: { memories: { own: 1, pools: 0 } },
    });
    const members = (await call(t, o.owner.token, 'GET', `/api/v1/orgs/${o.orgId}/members`))
      .body as {
      members: { userId: string }[];
    };
    expect(members.members.map((m) => m.userId).sort()).toEqual(
      [o.owner.id, o.admin.id, o.member.id].sort(),
    );
    // Not a person: Members does not reach them either.
    expect(
      await call(t, o.owner.token, 'PATCH', `/api/v1/orgs/${o.orgId}/members/${endUser.id}`, {
        role: 'admin',
      }),
    ).toEqual({ status: 404, body: { error: 'member not found' } });

    const restricted = await org({ userOverride: 'admins' });
    const other = (await put(restricted.owner.token, restricted.one('c-2'))).body as {
      endUser: { id: string };
    };
    const refused = await t.request(
      { token: restricted.member.token, orgId: restricted.orgId },
      { method: 'GET', url: `/api/v1/memory?user=${other.endUser.id}` },
    );
    expect(refused.statusCode).toBe(403);
  });
});
