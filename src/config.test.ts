import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  test('the defaults of docs/design.md §4', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      publicUrl: 'http://127.0.0.1:8080',
      databaseUrl: 'sqlite:./data/mnemo.db',
      databasePoolSize: 10,
      databaseStatementTimeoutMs: 5000,
      redisUrl: undefined,
      trustProxy: [],
      corsOrigins: [],
      env: 'sandbox',
      rateLimitPerMinute: 60,
      failedAuthPerMinute: 100,
      importItemsPerMinute: 10_000,
      appRateLimitMax: 6000,
      smtp: undefined,
      signup: 'invite',
      invitationDays: 7,
      outsideIssuer: undefined,
      authClockToleranceSeconds: 30,
      accessTokenTtlSeconds: 900,
      clientRegistration: true,
      clientRegistrationsPerHour: 10,
      clientMetadataPrivateAddresses: false,
      catalogLocation: { file: undefined, variables: {} },
      seedDemo: true,
      optimisticConcurrency: false,
      maxContentChars: 8000,
      tombstoneRetentionDays: 0,
      gatewayTimeoutMs: 300_000,
      gatewayWebSocketIdleMs: 600_000,
      searchEmbeddingTimeoutMs: 2000,
      memoryChat: {
        extraction: 'auto',
        extractionModel: undefined,
        recallTokens: 1000,
        wholeStoreUpTo: 50,
      },
      webhooks: { allowHttp: false, allowPrivate: false },
      logLevel: 'info',
    });
  });

  test('every variable is read; the public URL follows HOST and PORT unless set', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '::1',
      MNEMO_DATABASE_URL: 'postgres://mnemo@db.internal/mnemo',
      MNEMO_DATABASE_POOL_SIZE: '25',
      MNEMO_DATABASE_STATEMENT_TIMEOUT_MS: '1500',
      MNEMO_REDIS_URL: 'rediss://:secret@cache.internal:6380/2',
      MNEMO_TRUST_PROXY: '10.0.0.0/8, 192.0.2.1,fd00::/8, loopback',
      MNEMO_CORS_ORIGINS: 'https://app.example.test, http://localhost:5173',
      MNEMO_ENV: 'production',
      MNEMO_RATE_LIMIT_PER_MINUTE: '120',
      MNEMO_FAILED_AUTH_PER_MINUTE: '20',
      MNEMO_IMPORT_ITEMS_PER_MINUTE: '2500',
      MNEMO_AUTH_ISSUER: 'https://id.example.test',
      MNEMO_AUTH_JWKS_URL: 'https://id.example.test/jwks',
      MNEMO_AUTH_AUDIENCE: 'mnemo',
      MNEMO_CLIENT_REGISTRATION: 'off',
      MNEMO_CLIENT_REGISTRATIONS_PER_HOUR: '3',
      MNEMO_CLIENT_METADATA_PRIVATE_ADDRESSES: 'on',
      MNEMO_SEED_DEMO: 'off',
      MNEMO_OPTIMISTIC_CONCURRENCY: 'on',
      MNEMO_MAX_CONTENT_CHARS: '2000',
      MNEMO_TOMBSTONE_RETENTION_DAYS: '30',
      MNEMO_GATEWAY_TIMEOUT_SECONDS: '45',
      MNEMO_GATEWAY_WS_IDLE_SECONDS: '90',
      MNEMO_CONFIG: 'etc/gateway.json',
      MNEMO_SEARCH_EMBEDDING_MODEL: 'openai/text-embedding-3-small',
      MNEMO_SEARCH_EMBEDDING_TIMEOUT_MS: '750',
      MNEMO_MEMORY_EXTRACTION: 'review',
      MNEMO_MEMORY_EXTRACTION_MODEL: 'openai/gpt-4.1-mini',
      MNEMO_MEMORY_RECALL_TOKENS: '400',
      MNEMO_MEMORY_RECALL_WHOLE_STORE: '0',
      MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1',
      MNEMO_WEBHOOKS_ALLOW_HTTP: '1',
      MNEMO_LOG_LEVEL: 'warn',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '::1',
      publicUrl: 'http://[::1]:9000',
      databaseUrl: 'postgres://mnemo@db.internal/mnemo',
      databasePoolSize: 25,
      databaseStatementTimeoutMs: 1500,
      redisUrl: 'rediss://:secret@cache.internal:6380/2',
      trustProxy: ['10.0.0.0/8', '192.0.2.1', 'fd00::/8', 'loopback'],
      corsOrigins: ['https://app.example.test', 'http://localhost:5173'],
      env: 'production',
      rateLimitPerMinute: 120,
      failedAuthPerMinute: 20,
      importItemsPerMinute: 2500,
      outsideIssuer: {
        issuer: 'https://id.example.test',
        jwksUrl: 'https://id.example.test/jwks',
        audience: 'mnemo',
      },
      clientRegistration: false,
      clientRegistrationsPerHour: 3,
      clientMetadataPrivateAddresses: true,
      seedDemo: false,
      optimisticConcurrency: true,
      maxContentChars: 2000,
      tombstoneRetentionDays: 30,
      gatewayTimeoutMs: 45_000,
      gatewayWebSocketIdleMs: 90_000,
      searchEmbeddingTimeoutMs: 750,
      memoryChat: {
        extraction: 'review',
        extractionModel: 'openai/gpt-4.1-mini',
        recallTokens: 400,
        wholeStoreUpTo: 0,
      },
      webhooks: { allowHttp: true, allowPrivate: true },
      // Checked against the catalog by the gateway, which reads it.
      catalogLocation: {
        file: 'etc/gateway.json',
        searchEmbeddingModel: 'openai/text-embedding-3-small',
      },
      logLevel: 'warn',
    });
    expect(loadConfig({ MNEMO_PUBLIC_URL: 'https://mnemo.example.test' }).publicUrl).toBe(
      'https://mnemo.example.test',
    );
  });

  test('the catalog is located, not read: a bad or missing file is the gateway’s to report', () => {
    const config = loadConfig({ MNEMO_CONFIG: '/nowhere/mnemo.config.json', OLLAMA_KEY: 'k' });
    expect(config.catalogLocation).toEqual({
      file: '/nowhere/mnemo.config.json',
      // Provider keys live in variables a catalog file names: the environment goes along.
      variables: { MNEMO_CONFIG: '/nowhere/mnemo.config.json', OLLAMA_KEY: 'k' },
    });
    expect(Object.isFrozen(config.catalogLocation.variables)).toBe(true);
    expect(loadConfig({ MNEMO_CONFIG: '' }).catalogLocation.file).toBeUndefined();
  });

  test('an empty variable counts as unset', () => {
    expect(loadConfig({ PORT: '', MNEMO_ENV: '' })).toMatchObject({ port: 8080, env: 'sandbox' });
  });

  test('a rate of 0 turns the failed-authentication limit and the import budget off too', () => {
    expect(
      loadConfig({
        MNEMO_RATE_LIMIT_PER_MINUTE: '0',
        MNEMO_FAILED_AUTH_PER_MINUTE: '5',
        MNEMO_IMPORT_ITEMS_PER_MINUTE: '5000',
      }),
    ).toMatchObject({ rateLimitPerMinute: 0, failedAuthPerMinute: 0, importItemsPerMinute: 0 });
  });

  test('the import budget is off (0) or lets a full import of 1,000 through', () => {
    expect(loadConfig({ MNEMO_IMPORT_ITEMS_PER_MINUTE: '0' }).importItemsPerMinute).toBe(0);
    expect(loadConfig({ MNEMO_IMPORT_ITEMS_PER_MINUTE: '1000' }).importItemsPerMinute).toBe(1000);
    for (const value of ['999', '1', '-5', '01000', 'lots']) {
      expect(() => loadConfig({ MNEMO_IMPORT_ITEMS_PER_MINUTE: value }), value).toThrow(
        /MNEMO_IMPORT_ITEMS_PER_MINUTE/,
      );
    }
  });

  test('one error naming every invalid variable', () => {
    const bad = () =>
      loadConfig({
        PORT: 'eighty',
        MNEMO_ENV: 'prod',
        MNEMO_DATABASE_URL: 'mysql://x',
        MNEMO_SEED_DEMO: 'yes',
        MNEMO_PUBLIC_URL: 'https://mnemo.example.test/',
      });
    expect(bad).toThrow(ConfigError);
    try {
      bad();
    } catch (error) {
      const message = (error as Error).message;
      for (const name of [
        'PORT',
        'MNEMO_ENV',
        'MNEMO_DATABASE_URL',
        'MNEMO_SEED_DEMO',
        'MNEMO_PUBLIC_URL',
      ]) {
        expect(message).toContain(name);
      }
    }
  });

  test.each([
    [{ PORT: '70000' }, /PORT must be at most 65535/],
    [{ MNEMO_AUTH_ISSUER: 'https://id.example.test' }, /go together/],
    [{ MNEMO_MAX_CONTENT_CHARS: '0' }, /MNEMO_MAX_CONTENT_CHARS/],
    [{ MNEMO_LOG_LEVEL: 'verbose' }, /MNEMO_LOG_LEVEL/],
    [{ MNEMO_SEARCH_EMBEDDING_MODEL: 'openai/text embedding' }, /MNEMO_SEARCH_EMBEDDING_MODEL/],
    [{ MNEMO_SEARCH_EMBEDDING_TIMEOUT_MS: '0' }, /MNEMO_SEARCH_EMBEDDING_TIMEOUT_MS/],
    [{ MNEMO_MEMORY_EXTRACTION: 'sometimes' }, /MNEMO_MEMORY_EXTRACTION/],
    [{ MNEMO_MEMORY_RECALL_TOKENS: '0' }, /MNEMO_MEMORY_RECALL_TOKENS/],
    [{ MNEMO_DATABASE_POOL_SIZE: '0' }, /MNEMO_DATABASE_POOL_SIZE/],
    [{ MNEMO_DATABASE_POOL_SIZE: 'ten' }, /MNEMO_DATABASE_POOL_SIZE/],
    [{ MNEMO_DATABASE_STATEMENT_TIMEOUT_MS: '0' }, /MNEMO_DATABASE_STATEMENT_TIMEOUT_MS/],
    [{ MNEMO_DATABASE_STATEMENT_TIMEOUT_MS: '5s' }, /MNEMO_DATABASE_STATEMENT_TIMEOUT_MS/],
    [{ MNEMO_REDIS_URL: 'cache.internal:6379' }, /MNEMO_REDIS_URL/],
    [{ MNEMO_REDIS_URL: 'http://cache.internal' }, /MNEMO_REDIS_URL/],
    [{ MNEMO_TRUST_PROXY: '10.0.0.0/33' }, /MNEMO_TRUST_PROXY: .*"10.0.0.0\/33"/],
    [{ MNEMO_TRUST_PROXY: 'lb.internal, ::1' }, /MNEMO_TRUST_PROXY: .*"lb.internal"$/],
    [{ MNEMO_TRUST_PROXY: 'true' }, /MNEMO_TRUST_PROXY/],
    [
      { MNEMO_CORS_ORIGINS: 'https://app.example.test/, *, app.example.test, ftp://files.test' },
      /MNEMO_CORS_ORIGINS: not an origin .*: "https:\/\/app.example.test\/", "\*", "app.example.test", "ftp:\/\/files.test"$/,
    ],
  ])('%j is refused', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
