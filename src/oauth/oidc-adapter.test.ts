/**
 * The oidc-provider adapter over `oauth_records`, on the suite's engine: each method, expiry on a
 * clock of the test's own, two processes (two Database objects) on one store, the purge, and, as
 * a property, agreement with oidc-provider's own memory adapter over random histories.
 */
import fc from 'fast-check';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
// @ts-expect-error oidc-provider ships no types for its adapters (TS7016); typed just below.
import { createMemoryAdapter as untypedMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { afterAll, expect, test, vi } from 'vitest';
import { createDatabase, type Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrator.ts';
import { storesOfThisFile } from '../testing/file-stores.ts';
import { hashClientSecret } from './client-secrets.ts';
import {
  createOidcAdapter,
  type OidcAdapterOptions,
  purgeExpiredOAuthRecords,
} from './oidc-adapter.ts';

/** The reference: a fresh in-memory store per call, expiring on `Date.now()`. */
const createMemoryAdapter: () => AdapterFactory = untypedMemoryAdapter;

const newStore = storesOfThisFile();
const opened: Database[] = [];
// Registered after storesOfThisFile's: runs first, so the stores are closed before removal.
afterAll(async () => {
  for (const database of opened.splice(0)) await database.close();
});

/** A fresh migrated store, and a way to open it again, as another server process would. */
async function migratedStore(): Promise<{ database: Database; open: () => Database }> {
  const { url } = await newStore();
  const open = () => {
    const database = createDatabase(url);
    opened.push(database);
    return database;
  };
  const database = open();
  await migrateToLatest(database.db);
  return { database, open };
}

/** Not on a second boundary, so that `consumed` (epoch seconds) is seen to round down. */
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0) + 123;

function testClock() {
  let at = T0;
  return {
    now: () => at,
    advance: (ms: number) => {
      at += ms;
    },
  };
}

async function adapters(options: Pick<OidcAdapterOptions, 'findClient'> = {}) {
  const { database, open } = await migratedStore();
  const clock = testClock();
  const Adapter = createOidcAdapter(database, { now: clock.now, ...options });
  return { database, open, clock, Adapter };
}

const session = (id: string, uid: string): AdapterPayload => ({
  jti: id,
  kind: 'Session',
  uid,
  accountId: 'account-1',
  loginTs: 1_795_000_000,
  authorizations: { 'client-1': { sid: 'sid-1', grantId: 'grant-1', persistsLogout: true } },
  iat: 1_795_000_000,
  exp: 1_795_003_600,
});

const token = (kind: string, id: string, grantId: string): AdapterPayload => ({
  jti: id,
  kind,
  grantId,
  clientId: 'client-1',
  accountId: 'account-1',
  scope: 'openid offline_access',
  iat: 1_795_000_000,
  exp: 1_795_003_600,
});

test('a record comes back exactly as saved, under its own model only', async () => {
  const { Adapter } = await adapters();
  const payload: AdapterPayload = {
    ...token('AuthorizationCode', 'code-1', 'grant-1'),
    claims: { id_token: { email: null, name: { essential: true } } },
    resource: ['https://api.example.test/', 'https://other.example.test/'],
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    codeChallengeMethod: 'S256',
    redirectUri: 'https://app.example.test/callback?x=ü&y=%20',
    extra: { nested: [1, 2.5, false, null, 'text', { deep: [] }] },
  };
  await new Adapter('AuthorizationCode').upsert('code-1', payload, 600);
  expect(await new Adapter('AuthorizationCode').find('code-1')).toEqual(payload);
  // Records are keyed by (model, id): another model with the same id is not it.
  expect(await new Adapter('RefreshToken').find('code-1')).toBeUndefined();
  expect(await new Adapter('AuthorizationCode').find('code-2')).toBeUndefined();
});

test('a record expires expiresIn seconds after it was saved; without expiresIn it is kept', async () => {
  const { Adapter, clock } = await adapters();
  const interactions = new Adapter('Interaction');
  await interactions.upsert('short', { jti: 'short', kind: 'Interaction' }, 60);
  await interactions.upsert('kept', { jti: 'kept', kind: 'Interaction' });
  // A ttl of 0 or less (a record saved at or past its exp) is expired at once, as in memory.
  await interactions.upsert('zero', { jti: 'zero', kind: 'Interaction' }, 0);
  await interactions.upsert('past', { jti: 'past', kind: 'Interaction' }, -5);
  expect(await interactions.find('zero')).toBeUndefined();
  expect(await interactions.find('past')).toBeUndefined();

  clock.advance(60_000 - 1);
  expect(await interactions.find('short')).toEqual({ jti: 'short', kind: 'Interaction' });
  clock.advance(1);
  expect(await interactions.find('short')).toBeUndefined();

  clock.advance(10 * 365 * 24 * 3600 * 1000);
  expect(await interactions.find('kept')).toEqual({ jti: 'kept', kind: 'Interaction' });
});

test('consume: find reports the epoch second it happened; saving the record again clears it', async () => {
  const { Adapter, clock } = await adapters();
  const codes = new Adapter('AuthorizationCode');
  const payload = token('AuthorizationCode', 'code-1', 'grant-1');
  await codes.upsert('code-1', payload, 600);
  clock.advance(1500);
  await codes.consume('code-1');
  expect(await codes.find('code-1')).toEqual({
    ...payload,
    consumed: Math.floor((T0 + 1500) / 1000),
  });
  // Consuming what is not there changes nothing and does not fail.
  await codes.consume('missing');
  expect(await codes.find('missing')).toBeUndefined();

  await codes.upsert('code-1', payload, 600);
  expect(await codes.find('code-1')).toEqual(payload);
});

test('destroy removes that record only', async () => {
  const { Adapter } = await adapters();
  const sessions = new Adapter('Session');
  await sessions.upsert('s1', session('s1', 'u1'), 3600);
  await sessions.upsert('s2', session('s2', 'u2'), 3600);
  await new Adapter('Grant').upsert('s1', { jti: 's1', kind: 'Grant' }, 3600);
  await sessions.destroy('s1');
  await sessions.destroy('never-saved');
  expect(await sessions.find('s1')).toBeUndefined();
  expect(await sessions.findByUid('u1')).toBeUndefined();
  expect(await sessions.find('s2')).toEqual(session('s2', 'u2'));
  expect(await new Adapter('Grant').find('s1')).toEqual({ jti: 's1', kind: 'Grant' });
});

test("revokeByGrantId removes the grant's tokens of every model, and nothing else", async () => {
  const { Adapter } = await adapters();
  const tokenModels = ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'DeviceCode'];
  const of = (model: string, id: string, grantId: string) =>
    model === 'DeviceCode'
      ? { ...token(model, id, grantId), userCode: `code-${id}` }
      : token(model, id, grantId);
  for (const model of tokenModels) {
    await new Adapter(model).upsert('t1', of(model, 't1', 'grant-1'), 600);
    await new Adapter(model).upsert('t2', of(model, 't2', 'grant-2'), 600);
  }
  // Not tokens of the grant: the Grant itself (oidc-provider destroys it on its own), and an
  // Interaction that names it (the memory adapter does not revoke those either).
  await new Adapter('Grant').upsert('grant-1', { jti: 'grant-1', kind: 'Grant' }, 600);
  const interaction = { jti: 'i1', kind: 'Interaction', grantId: 'grant-1' };
  await new Adapter('Interaction').upsert('i1', interaction, 600);

  // Asked of one model's adapter, as oidc-provider does (helpers/revoke.js asks each model).
  await new Adapter('RefreshToken').revokeByGrantId('grant-1');

  for (const model of tokenModels) {
    expect(await new Adapter(model).find('t1')).toBeUndefined();
    expect(await new Adapter(model).find('t2')).toEqual(of(model, 't2', 'grant-2'));
  }
  expect(await new Adapter('DeviceCode').findByUserCode('code-t1')).toBeUndefined();
  expect(await new Adapter('DeviceCode').findByUserCode('code-t2')).toEqual(
    of('DeviceCode', 't2', 'grant-2'),
  );
  expect(await new Adapter('Grant').find('grant-1')).toEqual({ jti: 'grant-1', kind: 'Grant' });
  expect(await new Adapter('Interaction').find('i1')).toEqual(interaction);
});

test('findByUid finds a Session, findByUserCode a DeviceCode; both by the latest save', async () => {
  const { Adapter, clock } = await adapters();
  const sessions = new Adapter('Session');
  await sessions.upsert('s1', session('s1', 'uid-1'), 60);
  expect(await sessions.findByUid('uid-1')).toEqual(session('s1', 'uid-1'));
  expect(await sessions.findByUid('uid-2')).toBeUndefined();
  // The index is per model: an AccessToken does not find a Session.
  expect(await new Adapter('AccessToken').findByUid('uid-1')).toBeUndefined();

  const deviceCodes = new Adapter('DeviceCode');
  const device = { ...token('DeviceCode', 'd1', 'grant-1'), userCode: 'WDJB-MJHT' };
  await deviceCodes.upsert('d1', device, 60);
  expect(await deviceCodes.findByUserCode('WDJB-MJHT')).toEqual(device);
  await deviceCodes.consume('d1');
  expect(await deviceCodes.findByUserCode('WDJB-MJHT')).toEqual({
    ...device,
    consumed: Math.floor(T0 / 1000),
  });

  // Saved again with another uid: the old one finds nothing.
  await sessions.upsert('s1', session('s1', 'uid-1b'), 120);
  expect(await sessions.findByUid('uid-1')).toBeUndefined();
  expect(await sessions.findByUid('uid-1b')).toEqual(session('s1', 'uid-1b'));

  clock.advance(60_000);
  expect(await deviceCodes.findByUserCode('WDJB-MJHT')).toBeUndefined();
  expect(await sessions.findByUid('uid-1b')).toEqual(session('s1', 'uid-1b'));
  clock.advance(60_000);
  expect(await sessions.findByUid('uid-1b')).toBeUndefined();
});

test('upsert replaces the payload, the grant, the indexes and the expiry', async () => {
  const { Adapter, clock } = await adapters();
  const refreshTokens = new Adapter('RefreshToken');
  await refreshTokens.upsert('r1', token('RefreshToken', 'r1', 'grant-1'), 10);
  const replaced = { ...token('RefreshToken', 'r1', 'grant-2'), rotations: 1 };
  await refreshTokens.upsert('r1', replaced, 3600);

  await refreshTokens.revokeByGrantId('grant-1');
  clock.advance(10_000);
  expect(await refreshTokens.find('r1')).toEqual(replaced);

  // And back to never expiring.
  await refreshTokens.upsert('r1', replaced);
  clock.advance(3600_000);
  expect(await refreshTokens.find('r1')).toEqual(replaced);
  await refreshTokens.revokeByGrantId('grant-2');
  expect(await refreshTokens.find('r1')).toBeUndefined();
});

test('the Client model reads operators’ clients through findClient and keeps registered ones', async () => {
  const metadata: AdapterPayload = { client_id: 'client-1', redirect_uris: ['https://a.test/cb'] };
  const lookups: string[] = [];
  const findClient = async (id: string) => {
    lookups.push(id);
    return id === 'client-1' ? metadata : undefined;
  };
  const { Adapter, database } = await adapters({ findClient });
  const clients = new Adapter('Client');
  expect(await clients.find('client-1')).toEqual(metadata);
  expect(await clients.find('client-2')).toBeUndefined();

  // A client that registered itself is kept, with its secret as a hash and never expiring.
  const registered = { client_id: 'client-3', client_secret: 'mnemo_cs_plain', client_name: 'X' };
  await clients.upsert('client-3', registered);
  const stored = { ...registered, client_secret: hashClientSecret('mnemo_cs_plain') };
  expect(await clients.find('client-3')).toEqual(stored);
  const rows = await database.db.selectFrom('oauth_records').selectAll().execute();
  expect(rows).toEqual([
    expect.objectContaining({ model: 'Client', id: 'client-3', expires_at: null }),
  ]);
  expect(rows[0]?.payload).not.toContain('mnemo_cs_plain');
  // Another process of the service finds it as well.
  expect(await new (createOidcAdapter(database))('Client').find('client-3')).toEqual(stored);

  // What the provider never asks of clients does nothing.
  await clients.consume('client-1');
  await clients.destroy('client-3');
  await clients.revokeByGrantId('grant-1');
  expect(await clients.findByUid('client-3')).toBeUndefined();
  expect(await clients.findByUserCode('client-3')).toBeUndefined();
  expect(await clients.find('client-3')).toEqual(stored);

  // A URL is a client ID metadata document's: the provider fetches it, the store is not asked.
  lookups.length = 0;
  expect(await clients.find('https://app.example.test/client.json')).toBeUndefined();
  expect(lookups).toEqual([]);

  // Without findClient, only the registered ones are known.
  const bare = new (createOidcAdapter(database))('Client');
  expect(await bare.find('client-1')).toBeUndefined();
  expect(await bare.find('client-3')).toEqual(stored);
});

test("two processes on one store see each other's writes at once", async () => {
  const { database, open, clock } = await adapters();
  const A = createOidcAdapter(database, { now: clock.now });
  const B = createOidcAdapter(open(), { now: clock.now });

  const payload = token('RefreshToken', 'r1', 'grant-1');
  await new A('RefreshToken').upsert('r1', payload, 600);
  expect(await new B('RefreshToken').find('r1')).toEqual(payload);

  await new B('RefreshToken').consume('r1');
  expect(await new A('RefreshToken').find('r1')).toEqual({
    ...payload,
    consumed: Math.floor(T0 / 1000),
  });

  await new B('Session').upsert('s1', session('s1', 'uid-1'), 600);
  expect(await new A('Session').findByUid('uid-1')).toEqual(session('s1', 'uid-1'));

  await new A('AccessToken').revokeByGrantId('grant-1');
  expect(await new B('RefreshToken').find('r1')).toBeUndefined();
  await new A('Session').destroy('s1');
  expect(await new B('Session').find('s1')).toBeUndefined();
});

test('purgeExpiredOAuthRecords deletes the expired records only, and counts them', async () => {
  const { Adapter, database, clock } = await adapters();
  const interactions = new Adapter('Interaction');
  await interactions.upsert('gone-1', { jti: 'gone-1' }, 10);
  await new Adapter('AccessToken').upsert('gone-2', token('AccessToken', 'gone-2', 'g'), 20);
  await interactions.upsert('live', { jti: 'live' }, 60);
  await interactions.upsert('kept', { jti: 'kept' });

  expect(await purgeExpiredOAuthRecords(database, T0)).toBe(0);
  clock.advance(30_000);
  expect(await purgeExpiredOAuthRecords(database, clock.now())).toBe(2);
  expect(await purgeExpiredOAuthRecords(database, clock.now())).toBe(0);

  const left = await database.db.selectFrom('oauth_records').select('id').orderBy('id').execute();
  expect(left.map((row) => row.id)).toEqual(['kept', 'live']);
  expect(await interactions.find('live')).toEqual({ jti: 'live' });
});

// ---------------------------------------------------------------------------------------------
// The property: the same history on this adapter and on oidc-provider's memory adapter
// ---------------------------------------------------------------------------------------------

const MODELS = ['Session', 'AccessToken', 'RefreshToken', 'DeviceCode', 'Interaction', 'Grant'];
const IDS = ['a', 'b'];
const GRANTS = ['g1', 'g2'];
/** Each record's uid and user code are one of two of its own (see "what differs" below). */
const VARIANTS = [0, 1];

type Command =
  | {
      op: 'upsert';
      model: string;
      id: string;
      variant: number;
      grant: string | undefined;
      expiresIn: number | undefined;
      data: fc.JsonValue;
    }
  | { op: 'find' | 'consume' | 'destroy'; model: string; id: string }
  | { op: 'findByUid' | 'findByUserCode'; id: string; variant: number }
  | { op: 'revokeByGrantId'; model: string; grant: string }
  | { op: 'advance'; ms: number };

const model = fc.constantFrom(...MODELS);
const id = fc.constantFrom(...IDS);
const variant = fc.constantFrom(...VARIANTS);
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constant('upsert' as const),
      model,
      id,
      variant,
      grant: fc.option(fc.constantFrom(...GRANTS), { nil: undefined }),
      expiresIn: fc.option(fc.integer({ min: -2, max: 120 }), { nil: undefined }),
      data: fc.jsonValue({ maxDepth: 2 }),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({ op: fc.constantFrom('find', 'consume', 'destroy'), model, id }),
    weight: 4,
  },
  {
    arbitrary: fc.record({ op: fc.constantFrom('findByUid', 'findByUserCode'), id, variant }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      op: fc.constant('revokeByGrantId' as const),
      model,
      grant: fc.constantFrom(...GRANTS),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      op: fc.constant('advance' as const),
      // Whole seconds can land exactly on an expiry (whole seconds after its save); the rest
      // moves the clock within a second, where `consumed` rounds down.
      ms: fc.oneof(
        { arbitrary: fc.integer({ min: 0, max: 90 }).map((s) => s * 1000), weight: 3 },
        { arbitrary: fc.integer({ min: 1, max: 999 }), weight: 1 },
      ),
    }),
    weight: 2,
  },
);

/**
 * What legitimately differs, and how it is normalised:
 * - the memory adapter hands back the very object it was given (and mutates it on consume):
 *   its answers are compared as JSON, as they would be once stored;
 * - its uid and user-code indexes are global, and a uid saved by two records finds the later;
 *   ours are per model and keep no "later": so only Sessions carry a uid and only DeviceCodes
 *   a user code, each of them its record's own (as oidc-provider's are: random per record);
 * - consuming a record that is not there throws a TypeError there and does nothing here;
 * - it reads the clock from `Date.now()`, which is set to the test's clock around each call.
 */
function normalised(answer: Awaited<ReturnType<Adapter['find']>>): unknown {
  return answer ? JSON.parse(JSON.stringify(answer)) : undefined;
}

test('agrees with oidc-provider’s memory adapter over random histories (property)', async () => {
  const { database } = await migratedStore();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(commandArb, { maxLength: 40, size: 'max' }), async (commands) => {
      // Each run names its records apart, so runs share the store without meeting.
      const p = `run${run++}.`;
      let clock = T0;
      const Ours = createOidcAdapter(database, { now: () => clock });
      const memory = createMemoryAdapter();
      const ours = (m: string) => new Ours(m);
      /** The memory adapter's methods run synchronously to their end: the clock is set for it. */
      const theirs = <T>(m: string, call: (adapter: Adapter) => Promise<T>) => {
        const spy = vi.spyOn(Date, 'now').mockReturnValue(clock);
        try {
          return call(memory(m));
        } finally {
          spy.mockRestore();
        }
      };
      const agree = async (
        m: string,
        read: (adapter: Adapter) => ReturnType<Adapter['find']>,
        what: string,
      ) => {
        const expected = normalised(await theirs(m, read));
        expect(normalised(await read(ours(m))), what).toEqual(expected);
      };

      // A record keeps the grant of its first save, as oidc-provider's do: the memory adapter
      // never forgets a record it once filed under a grant, ours follows the latest save.
      const grantOf = new Map<string, string | undefined>();
      for (const command of commands) {
        const what = JSON.stringify(command);
        switch (command.op) {
          case 'upsert': {
            const record = `${command.model} ${command.id}`;
            if (!grantOf.has(record)) grantOf.set(record, command.grant);
            const grant = grantOf.get(record);
            const payload = (): AdapterPayload => ({
              jti: p + command.id,
              kind: command.model,
              ...(grant ? { grantId: p + grant } : {}),
              ...(command.model === 'Session'
                ? { uid: `${p}${command.id}.${command.variant}` }
                : {}),
              ...(command.model === 'DeviceCode'
                ? { userCode: `${p}${command.id}.${command.variant}` }
                : {}),
              data: command.data,
            });
            await theirs(command.model, (a) =>
              a.upsert(p + command.id, payload(), command.expiresIn),
            );
            await ours(command.model).upsert(p + command.id, payload(), command.expiresIn);
            break;
          }
          case 'find':
            await agree(command.model, (a) => a.find(p + command.id), what);
            break;
          case 'findByUid':
            await agree(
              'Session',
              (a) => a.findByUid(`${p}${command.id}.${command.variant}`),
              what,
            );
            break;
          case 'findByUserCode': {
            const userCode = `${p}${command.id}.${command.variant}`;
            await agree('DeviceCode', (a) => a.findByUserCode(userCode), what);
            break;
          }
          case 'consume':
            await theirs(command.model, (a) => a.consume(p + command.id)).catch((error) => {
              expect(error).toBeInstanceOf(TypeError);
            });
            await ours(command.model).consume(p + command.id);
            break;
          case 'destroy':
            await theirs(command.model, (a) => a.destroy(p + command.id));
            await ours(command.model).destroy(p + command.id);
            break;
          case 'revokeByGrantId':
            await theirs(command.model, (a) => a.revokeByGrantId(p + command.grant));
            await ours(command.model).revokeByGrantId(p + command.grant);
            break;
          case 'advance':
            clock += command.ms;
            break;
        }
      }

      // Everything either could hold, at the end.
      for (const m of MODELS) {
        for (const i of IDS) await agree(m, (a) => a.find(p + i), `find ${m} ${i} at the end`);
      }
      for (const i of IDS) {
        for (const v of VARIANTS) {
          const key = `${p}${i}.${v}`;
          await agree('Session', (a) => a.findByUid(key), `findByUid ${i}.${v} at the end`);
          await agree(
            'DeviceCode',
            (a) => a.findByUserCode(key),
            `findByUserCode ${i}.${v} at the end`,
          );
        }
      }
    }),
    { numRuns: 200 },
  );
}, 120_000);
