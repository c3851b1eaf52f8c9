/**
 * End users through the client against the real server: registered by an app's own id (one
 * person for any number of registrations at once), read with their memory counts, listed and
 * found by prefix, erased; a member who may not manage them refused with 403.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type OAuthServer, startOAuthServer } from '../../../src/testing/oauth-server.ts';
import { Mnemo, MnemoError } from './index.ts';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let server: OAuthServer;
let orgId: string;
let admin: Mnemo;

beforeAll(async () => {
  server = await startOAuthServer();
  orgId = await server.t.fixtures.org();
  const { token } = await server.t.fixtures.user(orgId, 'admin');
  admin = new Mnemo({ baseUrl: server.url, organizationId: orgId, auth: token });
});
afterAll(() => server?.close());

test('registering one id at once from five calls makes one end user, created once; the name given replaces the one held', async () => {
  const results = await Promise.all(
    Array.from({ length: 5 }, () => admin.endUsers.register('customer/42')),
  );
  expect(results.filter((result) => result.created)).toHaveLength(1);
  const [first] = results;
  expect(first?.endUser).toEqual({
    id: expect.any(String),
    externalId: 'customer/42',
    createdAt: expect.stringMatching(TIMESTAMP),
  });
  expect(new Set(results.map((result) => result.endUser.id)).size).toBe(1);

  const renamed = await admin.endUsers.register('customer/42', { name: 'Jane Doe' });
  expect(renamed).toEqual({ created: false, endUser: { ...first?.endUser, name: 'Jane Doe' } });
});

test("an end user's memories are the memory API's with `user`; get counts them; erase forgets the person", async () => {
  const { endUser } = await admin.endUsers.register('customer-7', { name: 'Ola Nordmann' });
  await admin.memories.add({ content: 'Prefers email', category: 'preference', user: endUser.id });

  expect(await admin.endUsers.get('customer-7')).toEqual({
    ...endUser,
    memories: { own: 1, pools: 0 },
  });
  const page = await admin.endUsers.list({ q: 'ola', limit: 10 });
  expect(page).toEqual({ endUsers: [endUser], total: 1 });

  await expect(admin.endUsers.erase('customer-7')).resolves.toBeUndefined();
  // Erasing again, or an id never known, succeeds as well.
  await expect(admin.endUsers.erase('customer-7')).resolves.toBeUndefined();
  const unknown = await admin.endUsers.get('customer-7').catch((error: unknown) => error);
  expect(unknown).toBeInstanceOf(MnemoError);
  expect(unknown).toMatchObject({ status: 404 });
  const refused = await admin.memories.list({ user: endUser.id }).catch((e: unknown) => e);
  expect(refused).toMatchObject({
    status: 400,
    message: 'user is not a member of this organization',
  });
});

test('a member may not manage end users: 403 with the reason', async () => {
  const { token } = await server.t.fixtures.user(orgId);
  const member = new Mnemo({ baseUrl: server.url, organizationId: orgId, auth: token });
  const refused = await member.endUsers.register('customer-9').catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(MnemoError);
  expect(refused).toMatchObject({ status: 403, message: expect.stringMatching(/\w/) });
});
