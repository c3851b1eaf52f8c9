/**
 * OAuth clients: their secrets, the metadata the provider is given for each kind, and the store
 * (a real migrated one, on the suite's engine).
 */
import * as crypto from 'node:crypto';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createDatabase, type Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrator.ts';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import {
  builtInClients,
  clientMetadata,
  EXTRA_CLIENT_METADATA,
  findClientMetadata,
  type MnemoClientMetadata,
  redirectUrisProblem,
} from './client-metadata.ts';
import {
  createClientId,
  createClientSecret,
  hashClientSecret,
  verifyClientSecret,
} from './client-secrets.ts';
import { findClient, insertClient, type OAuthClient } from './clients.repository.ts';

// The real functions, watched: verifyClientSecret must reach timingSafeEqual.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const BASE64URL = /^[\w-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

describe('client ids and secrets', () => {
  test('an id is mnemo_client_ and 16 random bytes, never shaped like a UUID', () => {
    const ids = Array.from({ length: 50 }, createClientId);
    for (const id of ids) {
      expect(id).toMatch(/^mnemo_client_[\w-]{22}$/);
      expect(Buffer.from(id.slice('mnemo_client_'.length), 'base64url')).toHaveLength(16);
      expect(id).not.toMatch(UUID);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('a secret is mnemo_cs_ and 32 random bytes; its hash is SHA-256, base64url', () => {
    const secrets = Array.from({ length: 50 }, createClientSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^mnemo_cs_[\w-]{43}$/);
      expect(Buffer.from(secret.slice('mnemo_cs_'.length), 'base64url')).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(secrets.length);

    // SHA-256("abc"), FIPS 180-2 appendix B.1.
    expect(hashClientSecret('abc')).toBe(
      Buffer.from(
        'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
        'hex',
      ).toString('base64url'),
    );
    const hash = hashClientSecret(secrets[0] ?? '');
    expect(hash).toMatch(BASE64URL);
    expect(hash).toHaveLength(43);
    expect(hashClientSecret(secrets[0] ?? '')).toBe(hash);
  });

  test('verify accepts the secret only, comparing the two hashes in constant time', () => {
    const timingSafeEqual = vi.mocked(crypto.timingSafeEqual);
    const secret = createClientSecret();
    const stored = hashClientSecret(secret);

    timingSafeEqual.mockClear();
    expect(verifyClientSecret(secret, stored)).toBe(true);
    expect(timingSafeEqual).toHaveBeenCalledTimes(1);
    const [actual, expected] = timingSafeEqual.mock.calls[0] ?? [];
    expect(Buffer.from(actual as Buffer).toString()).toBe(stored);
    expect(Buffer.from(expected as Buffer).toString()).toBe(stored);

    timingSafeEqual.mockClear();
    expect(verifyClientSecret(`${secret}x`, stored)).toBe(false);
    expect(verifyClientSecret(createClientSecret(), stored)).toBe(false);
    expect(verifyClientSecret('', stored)).toBe(false);
    // The stored hash is never taken for the secret.
    expect(verifyClientSecret(stored, stored)).toBe(false);
    expect(timingSafeEqual).toHaveBeenCalledTimes(4);

    // A malformed stored hash fails without a comparison (timingSafeEqual would throw).
    timingSafeEqual.mockClear();
    expect(verifyClientSecret(secret, '')).toBe(false);
    expect(verifyClientSecret(secret, `${stored}=`)).toBe(false);
    expect(timingSafeEqual).not.toHaveBeenCalled();
  });
});

const client = (overrides: Partial<OAuthClient>): OAuthClient => ({
  id: 'mnemo_client_test',
  name: 'Test',
  type: 'public',
  secretHash: null,
  redirectUris: [],
  grants: [],
  serviceUserId: null,
  orgId: null,
  rateLimitPerMinute: null,
  createdAt: 0,
  ...overrides,
});

const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';

describe('client metadata', () => {
  test('a public web app: authorization code + refresh, no secret', () => {
    const metadata = clientMetadata(
      client({
        name: 'Web app',
        grants: ['authorization_code', 'refresh_token'],
        redirectUris: ['https://app.example/cb', 'https://app.example/other'],
      }),
    );
    expect(metadata).toStrictEqual({
      client_id: 'mnemo_client_test',
      client_name: 'Web app',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: ['https://app.example/cb', 'https://app.example/other'],
      application_type: 'web',
      token_endpoint_auth_method: 'none',
      mnemo_first_party: false,
    });
  });

  test('loopback http or a private-use scheme makes a native app', () => {
    for (const uri of [
      'http://127.0.0.1/cb',
      'http://[::1]:8000/cb',
      'http://localhost:3000/callback',
      'com.example.app:/oauth2redirect',
    ]) {
      const metadata = clientMetadata(
        client({ grants: ['authorization_code'], redirectUris: ['https://app.example/cb', uri] }),
      );
      expect(metadata.application_type, uri).toBe('native');
    }
  });

  test('a confidential client: client_secret_basic, the stored hash as its secret', () => {
    const hash = hashClientSecret(createClientSecret());
    const metadata = clientMetadata(
      client({
        type: 'confidential',
        secretHash: hash,
        grants: ['authorization_code', 'device_code', 'refresh_token'],
        redirectUris: ['https://app.example/cb'],
      }),
    );
    expect(metadata).toMatchObject({
      grant_types: ['authorization_code', DEVICE_CODE, 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret: hash,
      mnemo_first_party: false,
    });
    expect(metadata).not.toHaveProperty('mnemo_service_user');
    expect(() => clientMetadata(client({ type: 'confidential' }))).toThrow(
      'oauth client mnemo_client_test is confidential but has no secret',
    );
  });

  test('a service client: client credentials only, no response type, bound to its user', () => {
    const hash = hashClientSecret('s');
    expect(
      clientMetadata(
        client({
          type: 'confidential',
          secretHash: hash,
          grants: ['client_credentials'],
          serviceUserId: 'e8b4b0c2-3f4e-4d59-9a0f-6a1f0c0e2b11',
        }),
      ),
    ).toStrictEqual({
      client_id: 'mnemo_client_test',
      client_name: 'Test',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      application_type: 'web',
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret: hash,
      mnemo_first_party: false,
      mnemo_service_user: 'e8b4b0c2-3f4e-4d59-9a0f-6a1f0c0e2b11',
    });
  });

  test('a public device-flow client: the URN grant, no response type', () => {
    expect(clientMetadata(client({ grants: ['device_code', 'refresh_token'] }))).toMatchObject({
      grant_types: [DEVICE_CODE, 'refresh_token'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'none',
    });
  });

  test('builtInClients: the studio and the CLI, first-party and public', () => {
    expect(builtInClients('https://mnemo.example.test')).toStrictEqual([
      {
        client_id: 'mnemo-studio',
        client_name: 'mnemo studio',
        application_type: 'web',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: ['https://mnemo.example.test/studio/callback'],
        post_logout_redirect_uris: ['https://mnemo.example.test/studio/'],
        token_endpoint_auth_method: 'none',
        mnemo_first_party: true,
      },
      {
        client_id: 'mnemo-cli',
        client_name: 'mnemo CLI',
        application_type: 'native',
        grant_types: [DEVICE_CODE, 'refresh_token'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'none',
        mnemo_first_party: true,
      },
    ]);
  });

  test('oidc-provider takes every kind as it is given', async () => {
    const secretHash = hashClientSecret('s');
    const clients: MnemoClientMetadata[] = [
      ...builtInClients('http://127.0.0.1:8080'),
      clientMetadata(
        client({
          id: 'mnemo_client_native',
          grants: ['authorization_code', 'refresh_token'],
          redirectUris: ['http://127.0.0.1/cb', 'com.example.app:/cb', 'https://app.example/cb'],
        }),
      ),
      clientMetadata(
        client({
          id: 'mnemo_client_service',
          type: 'confidential',
          secretHash,
          grants: ['client_credentials'],
          serviceUserId: 'e8b4b0c2-3f4e-4d59-9a0f-6a1f0c0e2b11',
        }),
      ),
      clientMetadata(
        client({
          id: 'mnemo_client_device',
          type: 'confidential',
          secretHash,
          grants: ['device_code', 'refresh_token'],
        }),
      ),
    ];
    // The provider warns about its development defaults (keys, adapter), not needed here.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    let provider: Provider;
    try {
      provider = new Provider('http://127.0.0.1:8080/oauth', {
        clients,
        features: {
          deviceFlow: { enabled: true },
          clientCredentials: { enabled: true },
          devInteractions: { enabled: false },
        },
        extraClientMetadata: { properties: [...EXTRA_CLIENT_METADATA] },
      });
    } finally {
      warn.mockRestore();
    }
    for (const metadata of clients) {
      const found = await provider.Client.find(metadata.client_id);
      expect(found?.metadata(), metadata.client_id).toMatchObject({
        client_id: metadata.client_id,
        grant_types: metadata.grant_types,
        response_types: metadata.response_types,
        application_type: metadata.application_type,
        mnemo_first_party: metadata.mnemo_first_party,
      });
    }
    const service = await provider.Client.find('mnemo_client_service');
    expect(service?.metadata().mnemo_service_user).toBe('e8b4b0c2-3f4e-4d59-9a0f-6a1f0c0e2b11');
  });
});

describe('redirect URIs', () => {
  test('https, loopback http and private-use schemes pass', () => {
    expect(
      redirectUrisProblem(['https://app.example/cb?x=1', 'https://localhost:8443/cb']),
    ).toBeUndefined();
    expect(
      redirectUrisProblem(['http://127.0.0.1:9000/cb', 'http://[::1]/cb', 'http://localhost/cb']),
    ).toBeUndefined();
    expect(redirectUrisProblem(['com.example.app:/cb', 'https://app.example/cb'])).toBeUndefined();
    expect(redirectUrisProblem([])).toBeUndefined();
  });

  test('each refusal names the URI', () => {
    const cases: Array<[string[], string]> = [
      [['/cb'], 'must be an absolute URI, not "/cb"'],
      [
        ['https://app.example/cb#top'],
        'must not contain a fragment (#…), not "https://app.example/cb#top"',
      ],
      [['https://app.example/c b'], 'must not contain white space: "https://app.example/c b"'],
      [
        ['http://app.example/cb'],
        'must be https, http on a loopback host (127.0.0.1, [::1], localhost) or a private-use scheme with a dot (com.example.app:/callback), not "http://app.example/cb"',
      ],
      [
        ['myapp:/cb'],
        'must be https, http on a loopback host (127.0.0.1, [::1], localhost) or a private-use scheme with a dot (com.example.app:/callback), not "myapp:/cb"',
      ],
      [
        ['https://localhost/cb', 'http://127.0.0.1/cb'],
        '"https://localhost/cb" cannot be combined with http loopback or private-use redirect URIs: those make the client a native app, whose https redirect URIs must not be on a loopback host',
      ],
    ];
    for (const [uris, problem] of cases) expect(redirectUrisProblem(uris), uris[0]).toBe(problem);
  });
});

describe('the store', () => {
  let store: TestStore;
  let database: Database;
  beforeAll(async () => {
    store = await createTestStore();
    database = createDatabase(store.url);
    await migrateToLatest(database.db);
  });
  afterAll(async () => {
    await database.close();
    await store.dispose();
  });

  test('a client is stored and read back as it was written', async () => {
    const id = createClientId();
    const written = {
      id,
      name: 'Stored',
      type: 'public' as const,
      secretHash: null,
      redirectUris: ['com.example.app:/cb', 'http://127.0.0.1/cb'],
      grants: ['authorization_code' as const, 'refresh_token' as const],
      serviceUserId: null,
    };
    await insertClient(database.db, written, 1_700_000_000_000);
    expect(await findClient(database.db, id)).toStrictEqual({
      ...written,
      orgId: null,
      rateLimitPerMinute: null,
      createdAt: 1_700_000_000_000,
    });
    const row = await database.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.grant_types).toBe('["authorization_code","refresh_token"]');
    expect(row.redirect_uris).toBe('["com.example.app:/cb","http://127.0.0.1/cb"]');

    expect(await findClientMetadata(database.db, id)).toMatchObject({
      client_id: id,
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(await findClient(database.db, createClientId())).toBeUndefined();
    expect(await findClientMetadata(database.db, 'mnemo-studio')).toBeUndefined();
  });
});
