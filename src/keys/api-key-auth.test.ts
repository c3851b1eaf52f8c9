/**
 * The chat interface's key check: why each key is refused (gateway.routes.test.ts has the 401s
 * those become), no store read for a malformed key, revocation and expiry at once on every
 * process, and `last_used_at` written in batches.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateApiKey } from '../credentials/api-key-secret.ts';
import type { Database } from '../db/database.ts';
import type { QueryRunner } from '../db/prepared-query.ts';
import { deleteMembership } from '../tenancy/orgs.repository.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import {
  type ApiKeyAuthentication,
  type ApiKeyRefusal,
  createApiKeyAuthenticator,
} from './api-key-auth.ts';
import type { ApiKey } from './keys.schemas.ts';
import { createLastUsedRecorder, type LastUsedRecorder } from './last-used.ts';

const BASE = '/api/v1/api-keys';

let t: TestApp;
let second: TestApp;
let orgId: string;
let owner: { id: string; token: string };

const refusal = (why: ApiKeyRefusal): ApiKeyAuthentication => ({ ok: false, refusal: why });

/** A recorder that writes only when told: the store sees no write from authentication. */
const idle = (): LastUsedRecorder =>
  createLastUsedRecorder({ database: t.database, flushIntervalMs: 3_600_000 });

/** Counts the reader's queries: the only way the key check reads the store. */
function countingReader(database: Database) {
  const counter = { reads: 0 };
  const reader: QueryRunner = {
    executeQuery: (query) => {
      counter.reads += 1;
      return database.reader.executeQuery(query);
    },
  };
  return { database: { db: database.db, reader }, counter };
}

/** Counts write transactions. */
function countingWrites(database: Database) {
  const counter = { writes: 0 };
  const wrapped: Pick<Database, 'write'> = {
    write: (job) => {
      counter.writes += 1;
      return database.write(job);
    },
  };
  return { database: wrapped, counter };
}

async function createKey(
  token = owner.token,
  body: object = { name: 'gateway' },
  org = orgId,
): Promise<{ key: ApiKey; secret: string }> {
  const res = await t.request({ token, orgId: org }, { method: 'POST', url: BASE, payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const lastUsedOf = async (keyId: string) =>
  (
    await t.database.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow()
  ).last_used_at;

beforeAll(async () => {
  t = await buildTestApp();
  // A second process on the same store.
  second = await buildTestApp({}, { sharedStore: t.store });
  orgId = await t.fixtures.org();
  owner = await t.fixtures.user(orgId, 'owner');
});

afterAll(async () => {
  await second?.close();
  await t?.close();
});

describe('authenticateApiKey', () => {
  test('a valid key: its organization, user and id, whether bound to a project or not', async () => {
    const projectId = await t.fixtures.project(orgId, { [owner.id]: 'viewer' });
    const plain = await createKey();
    const bound = await createKey(owner.token, { name: 'bound', projectId });
    const authenticate = createApiKeyAuthenticator({ database: t.database, lastUsed: idle() });
    expect(await authenticate(`Bearer ${plain.secret}`)).toEqual({
      ok: true,
      holder: {
        orgId,
        userId: owner.id,
        keyId: plain.key.id,
        memory: { mode: 'off', access: 'read-write' },
        member: { role: 'owner', memoryEnabled: null, userOverride: 'members' },
      },
    });
    expect(await authenticate(`bearer  ${bound.secret} `)).toEqual({
      ok: true,
      holder: {
        orgId,
        userId: owner.id,
        keyId: bound.key.id,
        memory: { mode: 'off', access: 'read-write' },
        member: { role: 'owner', memoryEnabled: null, userOverride: 'members' },
      },
    });
  });

  test('missing, malformed, bad-checksum keys and platform credentials are refused without reading the store', async () => {
    const { database, counter } = countingReader(t.database);
    const recorded: string[] = [];
    const authenticate = createApiKeyAuthenticator({
      database,
      lastUsed: { record: (id) => recorded.push(id), flush: async () => {}, close: async () => {} },
    });
    const { secret } = generateApiKey();
    const last = secret.at(-1) === 'a' ? 'b' : 'a';
    const badChecksum = secret.slice(0, -1) + last;
    const cases: Array<[string | undefined, ApiKeyRefusal]> = [
      [undefined, 'missing'],
      ['', 'missing'],
      ['   ', 'missing'],
      [secret, 'malformed'],
      [`Basic ${secret}`, 'malformed'],
      ['Bearer', 'malformed'],
      ['Bearer sk-proj-123', 'malformed'],
      [`Bearer ${badChecksum}`, 'malformed'],
      [`Bearer ${secret.slice(0, -1)}`, 'malformed'],
      [`Bearer ${secret}x`, 'malformed'],
      [`Bearer ${secret} ${secret}`, 'malformed'],
      // Not a JWT: two segments, or a header that is not JSON.
      ['Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0', 'malformed'],
      ['Bearer aaa.bbb.ccc', 'malformed'],
      [`Bearer ${await t.fixtures.token(owner.id)}`, 'platform-credential'],
    ];
    for (const [authorization, why] of cases) {
      expect(await authenticate(authorization), String(authorization)).toEqual(refusal(why));
    }
    expect(counter.reads).toBe(0);
    // A well-formed key is looked up: one read, and it is unknown.
    expect(await authenticate(`Bearer ${secret}`)).toEqual(refusal('unknown'));
    expect(counter.reads).toBe(1);
    expect(recorded).toEqual([]);
  });

  test('a revoked key fails at once on another process', async () => {
    const { key, secret } = await createKey();
    const onSecond = createApiKeyAuthenticator({
      database: second.database,
      lastUsed: createLastUsedRecorder({ database: second.database, flushIntervalMs: 3_600_000 }),
    });
    expect(await onSecond(`Bearer ${secret}`)).toMatchObject({
      ok: true,
      holder: { keyId: key.id },
    });
    const res = await t.request(
      { token: owner.token, orgId },
      { method: 'DELETE', url: `${BASE}/${key.id}` },
    );
    expect(res.statusCode).toBe(200);
    expect(await onSecond(`Bearer ${secret}`)).toEqual(refusal('revoked'));
  });

  test('an expired key fails from its expiry on', async () => {
    const expiresAt = Date.now() + 60 * 60 * 1000;
    const { secret } = await createKey(owner.token, {
      name: 'short-lived',
      expiresAt: new Date(expiresAt).toISOString(),
    });
    let now = expiresAt - 1;
    const authenticate = createApiKeyAuthenticator({
      database: t.database,
      lastUsed: idle(),
      now: () => now,
    });
    expect(await authenticate(`Bearer ${secret}`)).toMatchObject({ ok: true });
    now = expiresAt;
    expect(await authenticate(`Bearer ${secret}`)).toEqual(refusal('expired'));
  });

  test('a key stops working when its user is suspended, banned or leaves its organization', async () => {
    const authenticate = createApiKeyAuthenticator({ database: t.database, lastUsed: idle() });
    const suspended = await t.fixtures.user(orgId, 'member');
    const banned = await t.fixtures.user(orgId, 'member');
    const leaver = await t.fixtures.user(orgId, 'member');
    const a = await createKey(suspended.token);
    const b = await createKey(leaver.token);
    const c = await createKey(banned.token);
    await t.fixtures.status(suspended.id, 'suspended');
    await t.fixtures.status(banned.id, 'banned');
    await deleteMembership(t.database.db, orgId, leaver.id);
    expect(await authenticate(`Bearer ${a.secret}`)).toEqual(refusal('owner-suspended'));
    expect(await authenticate(`Bearer ${b.secret}`)).toEqual(refusal('owner-not-member'));
    expect(await authenticate(`Bearer ${c.secret}`)).toEqual(refusal('owner-banned'));
    // Back in: the same key works again (nothing was cached).
    await t.fixtures.status(suspended.id, 'active');
    expect(await authenticate(`Bearer ${a.secret}`)).toMatchObject({ ok: true });
  });
});

describe('last used', () => {
  test('many uses: no write until the flush, then one write; the time only moves forward', async () => {
    const a = await createKey();
    const b = await createKey();
    const { database, counter } = countingWrites(t.database);
    const lastUsed = createLastUsedRecorder({ database, flushIntervalMs: 3_600_000 });
    let now = Date.now();
    const authenticate = createApiKeyAuthenticator({
      database: t.database,
      lastUsed,
      now: () => now,
    });
    for (let i = 0; i < 50; i += 1) {
      now += 1;
      expect(await authenticate(`Bearer ${i % 2 ? a.secret : b.secret}`)).toMatchObject({
        ok: true,
      });
    }
    expect(counter.writes).toBe(0);
    expect(await lastUsedOf(a.key.id)).toBeNull();
    await lastUsed.flush();
    expect(counter.writes).toBe(1);
    expect(await lastUsedOf(a.key.id)).toBe(now);
    expect(await lastUsedOf(b.key.id)).toBe(now - 1);
    // Nothing new: no write.
    await lastUsed.flush();
    expect(counter.writes).toBe(1);

    // Another process that saw an older use flushes later: the stored time stays.
    const stale = createLastUsedRecorder({ database: t.database, flushIntervalMs: 3_600_000 });
    stale.record(a.key.id, now - 1000);
    await stale.flush();
    expect(await lastUsedOf(a.key.id)).toBe(now);

    now += 5000;
    await authenticate(`Bearer ${a.secret}`);
    await lastUsed.flush();
    expect(counter.writes).toBe(2);
    expect(await lastUsedOf(a.key.id)).toBe(now);

    const listed = await t.request({ token: owner.token, orgId }, { method: 'GET', url: BASE });
    const shown = (listed.json() as { keys: ApiKey[] }).keys.find((k) => k.id === a.key.id);
    expect(shown?.lastUsedAt).toBe(new Date(now).toISOString());
  });

  test('the timer flushes on its own, once per interval', async () => {
    const { key } = await createKey();
    const { database, counter } = countingWrites(t.database);
    const lastUsed = createLastUsedRecorder({ database, flushIntervalMs: 50 });
    // Recorded at once, inside one interval however loaded the machine: one write for all.
    const at = Date.now();
    for (let i = 0; i < 20; i += 1) lastUsed.record(key.id, at + i);
    await expect.poll(() => lastUsedOf(key.id), { timeout: 2000 }).toBe(at + 19);
    expect(counter.writes).toBe(1);
    await lastUsed.close();
  });

  test('a failed flush keeps its uses for the next one', async () => {
    const { key } = await createKey();
    let fail = true;
    const errors: unknown[] = [];
    const lastUsed = createLastUsedRecorder({
      database: {
        write: (job) => (fail ? Promise.reject(new Error('store down')) : t.database.write(job)),
      },
      flushIntervalMs: 3_600_000,
      onError: (error) => errors.push(error),
    });
    lastUsed.record(key.id, 1234);
    await expect(lastUsed.flush()).rejects.toThrow('store down');
    expect(errors).toHaveLength(1);
    fail = false;
    await lastUsed.flush();
    expect(await lastUsedOf(key.id)).toBe(1234);
  });

  test("the app's recorder is flushed when the app closes", async () => {
    const { key, secret } = await createKey();
    // Another process of the same store, whose only use of the key is one call of /v1.
    const other = await buildTestApp({}, { sharedStore: t.store });
    const res = await other.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(res.statusCode).toBe(200);
    expect(await lastUsedOf(key.id)).toBeNull();
    await other.close();
    expect(await lastUsedOf(key.id)).not.toBeNull();
  });
});
