import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';

const OnOff = Type.Union([Type.Literal('on'), Type.Literal('off')]);

/** The environment mnemo reads; the only place that touches `process.env`. */
const Env = Type.Object({
  PORT: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  MNEMO_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*[^/])?$' })),
  MNEMO_DATABASE_URL: Type.Optional(Type.String({ pattern: '^(sqlite:.+|postgres(ql)?://.+)$' })),
  MNEMO_DATABASE_POOL_SIZE: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$' })),
  MNEMO_DATABASE_STATEMENT_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  MNEMO_REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://.+$' })),
  MNEMO_TRUST_PROXY: Type.Optional(Type.String({ minLength: 1 })),
  MNEMO_CORS_ORIGINS: Type.Optional(Type.String({ minLength: 1 })),
  MNEMO_ENV: Type.Optional(
    Type.Union([Type.Literal('sandbox'), Type.Literal('staging'), Type.Literal('production')]),
  ),
  MNEMO_RATE_LIMIT_PER_MINUTE: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  MNEMO_FAILED_AUTH_PER_MINUTE: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  // 0 (off) or at least an import's most items: a full import must be able to pass.
  MNEMO_IMPORT_ITEMS_PER_MINUTE: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{3,8})$' })),
  MNEMO_APP_RATE_LIMIT_MAX: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  MNEMO_SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://[^\\s]+$' })),
  MNEMO_SMTP_FROM: Type.Optional(Type.String({ minLength: 3 })),
  MNEMO_SIGNUP: Type.Optional(Type.Enum(['closed', 'invite', 'open'])),
  MNEMO_INVITATION_DAYS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$' })),
  MNEMO_AUTH_ISSUER: Type.Optional(Type.String({ minLength: 1 })),
  MNEMO_AUTH_JWKS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  MNEMO_AUTH_AUDIENCE: Type.Optional(Type.String({ minLength: 1 })),
  MNEMO_AUTH_CLOCK_TOLERANCE_SECONDS: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })),
  MNEMO_ACCESS_TOKEN_TTL_SECONDS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  MNEMO_CLIENT_REGISTRATION: Type.Optional(OnOff),
  MNEMO_CLIENT_REGISTRATIONS_PER_HOUR: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$' })),
  MNEMO_CLIENT_METADATA_PRIVATE_ADDRESSES: Type.Optional(OnOff),
  MNEMO_SEED_DEMO: Type.Optional(OnOff),
  MNEMO_OPTIMISTIC_CONCURRENCY: Type.Optional(OnOff),
  MNEMO_MAX_CONTENT_CHARS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]*$' })),
  MNEMO_TOMBSTONE_RETENTION_DAYS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  MNEMO_CONFIG: Type.Optional(Type.String({ minLength: 1 })),
  MNEMO_GATEWAY_TIMEOUT_SECONDS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,4}$' })),
  MNEMO_GATEWAY_WS_IDLE_SECONDS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  MNEMO_SEARCH_EMBEDDING_MODEL: Type.Optional(Type.String({ pattern: '^\\S+$' })),
  MNEMO_SEARCH_EMBEDDING_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  MNEMO_MEMORY_EXTRACTION: Type.Optional(Type.Enum(['auto', 'review'])),
  MNEMO_MEMORY_EXTRACTION_MODEL: Type.Optional(Type.String({ pattern: '^\\S+$' })),
  MNEMO_MEMORY_RECALL_TOKENS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  MNEMO_MEMORY_RECALL_WHOLE_STORE: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
  MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS: Type.Optional(Type.String({ pattern: '^[01]$' })),
  MNEMO_WEBHOOKS_ALLOW_HTTP: Type.Optional(Type.String({ pattern: '^[01]$' })),
  MNEMO_LOG_LEVEL: Type.Optional(
    Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  ),
});
type Env = Static<typeof Env>;

export type Environment = 'sandbox' | 'staging' | 'production';

export interface OutsideIssuer {
  readonly issuer: string;
  readonly jwksUrl: string;
  readonly audience: string;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly databaseUrl: string;
  /** PostgreSQL: the most connections this process opens. */
  readonly databasePoolSize: number;
  /** PostgreSQL: the longest a statement may run (lock waits included) before it is cancelled. */
  readonly databaseStatementTimeoutMs: number;
  /** The Redis that rate limits are counted in, shared by every process; none: in the process. */
  readonly redisUrl: string | undefined;
  /**
   * Addresses of the proxies in front (IPs, CIDR ranges, or proxy-addr's `loopback`,
   * `linklocal`, `uniquelocal`) whose `X-Forwarded-For` names the client; none: the peer is.
   */
  readonly trustProxy: readonly string[];
  /** Browser origins (`https://app.example`) allowed to call `/api` and `/v1`; none: no CORS. */
  readonly corsOrigins: readonly string[];
  readonly env: Environment;
  /** Requests per minute per credential subject; 0 turns rate limiting off. */
  readonly rateLimitPerMinute: number;
  /** Failed authentications per minute per client address; 0 turns it off. */
  readonly failedAuthPerMinute: number;
  /** Memories imported per minute per account (`POST /api/v1/memory/import`); 0: no budget. */
  readonly importItemsPerMinute: number;
  /**
   * The most requests a minute owners may give an app (its own limit above the default); the
   * default for everyone else is `rateLimitPerMinute`.
   */
  readonly appRateLimitMax: number;
  /**
   * Email for invitations, sign-up confirmation and password resets (`smtp://` or `smtps://`,
   * credentials in the URL); none: no email, the studio shows links to copy.
   */
  readonly smtp: { readonly url: string; readonly from: string } | undefined;
  /**
   * Who may create an account: nobody but operators (`closed`), people invited to an
   * organization (`invite`), or anyone, who then owns a new organization (`open`).
   */
  readonly signup: 'closed' | 'invite' | 'open';
  /** How many days an invitation's link works. */
  readonly invitationDays: number;
  readonly outsideIssuer: OutsideIssuer | undefined;
  /** How long past its `exp` a platform credential is still accepted (clock skew), seconds. */
  readonly authClockToleranceSeconds: number;
  /** Lifetime of the authorization server's access and ID tokens, seconds. */
  readonly accessTokenTtlSeconds: number;
  /** Open dynamic client registration (RFC 7591) at the authorization server. */
  readonly clientRegistration: boolean;
  /** Client registrations per client address in an hour; 0: no cap. */
  readonly clientRegistrationsPerHour: number;
  /**
   * Whether client metadata documents (and other documents the authorization server fetches)
   * may be on private, loopback and other special-use addresses; off: refused.
   */
  readonly clientMetadataPrivateAddresses: boolean;
  readonly seedDemo: boolean;
  readonly optimisticConcurrency: boolean;
  readonly maxContentChars: number;
  /** Days a tombstone is kept; 0 keeps tombstones for ever. */
  readonly tombstoneRetentionDays: number;
  readonly logLevel: string;
  /** Where the chat interface's providers, models and router are configured. */
  readonly catalogLocation: CatalogLocation;
  /**
   * How long a provider may take to start answering, and a started answer may go silent,
   * before the gateway gives up on it (the router then tries the next model).
   */
  readonly gatewayTimeoutMs: number;
  /** How long a `/v1/responses` WebSocket may sit with nothing sent and nothing running. */
  readonly gatewayWebSocketIdleMs: number;
  /**
   * How long a search waits for its query's vector before it answers by words alone
   * (docs/design.md §3.4.1).
   */
  readonly searchEmbeddingTimeoutMs: number;
  /** Memory in chat calls (docs/memory-chat.md). */
  readonly memoryChat: {
    /** `review`: what extraction learns waits in the studio for its owner to accept or drop. */
    readonly extraction: 'auto' | 'review';
    /** The catalog model (or the router) extraction calls use; the router when unset. */
    readonly extractionModel: string | undefined;
    /** The most tokens (estimated) of memories one call's prompt is given. */
    readonly recallTokens: number;
    /** A store with at most this many memories is recalled whole, else searched. */
    readonly wholeStoreUpTo: number;
  };
  /** Where webhooks may be sent (docs/webhooks.md, "Targets"). */
  readonly webhooks: {
    /** `MNEMO_WEBHOOKS_ALLOW_HTTP=1`: plain http:// targets too. */
    readonly allowHttp: boolean;
    /**
     * `MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS=1`: loopback, private, link-local, metadata and the
     * other special-use addresses too.
     */
    readonly allowPrivate: boolean;
  };
}

/**
 * Where the chat interface's catalog (providers, models, router) is; the gateway reads and checks
 * it itself (gateway/gateway-config.ts).
 */
export interface CatalogLocation {
  /**
   * `MNEMO_CONFIG`: the catalog file, relative to the working directory or absolute; none:
   * `./mnemo.config.json` when it exists, else the providers the conventional variables switch on.
   */
  readonly file: string | undefined;
  /**
   * The environment as read at start: a file names the variables its providers' keys are in
   * (`apiKeyEnv`), and without a file `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`
   * (and their `*_BASE_URL`) switch providers on.
   */
  readonly variables: Readonly<Record<string, string | undefined>>;
  /**
   * `MNEMO_SEARCH_EMBEDDING_MODEL`: the catalog's embedding model that memory search uses, over
   * the file's `search.embeddingModel`; none: the file's, else search is lexical.
   */
  readonly searchEmbeddingModel?: string | undefined;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Whether the environment names the server's public URL (`MNEMO_PUBLIC_URL`, `HOST` or `PORT`
 * set), rather than leaving it to the default: the CLI talks to the server it signed in to last
 * only when it does not.
 */
export function namesPublicUrl(source: Record<string, string | undefined> = process.env): boolean {
  return ['MNEMO_PUBLIC_URL', 'HOST', 'PORT'].some((name) => (source[name] ?? '') !== '');
}

/** Reads and validates the environment once; fails with one message naming every bad variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(Env.properties)) {
    const value = source[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  if (!Value.Check(Env, picked)) {
    const problems = [...Value.Errors(Env, picked)].map(
      (e) => `${e.instancePath.slice(1) || 'environment'}: ${e.message}`,
    );
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return fromEnv(picked, source);
}

function fromEnv(env: Env, source: Record<string, string | undefined>): Config {
  const port = Number(env.PORT ?? '8080');
  if (port > 65535) throw new ConfigError('invalid configuration: PORT must be at most 65535');
  const host = env.HOST ?? '127.0.0.1';
  const issuerVars = [env.MNEMO_AUTH_ISSUER, env.MNEMO_AUTH_JWKS_URL, env.MNEMO_AUTH_AUDIENCE];
  const setCount = issuerVars.filter((v) => v !== undefined).length;
  if (setCount !== 0 && setCount !== 3) {
    throw new ConfigError(
      'invalid configuration: MNEMO_AUTH_ISSUER, MNEMO_AUTH_JWKS_URL and MNEMO_AUTH_AUDIENCE go together',
    );
  }
  const outsideIssuer =
    env.MNEMO_AUTH_ISSUER && env.MNEMO_AUTH_JWKS_URL && env.MNEMO_AUTH_AUDIENCE
      ? {
          issuer: env.MNEMO_AUTH_ISSUER,
          jwksUrl: env.MNEMO_AUTH_JWKS_URL,
          audience: env.MNEMO_AUTH_AUDIENCE,
        }
      : undefined;
  const rateLimitPerMinute = Number(env.MNEMO_RATE_LIMIT_PER_MINUTE ?? '60');
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const publicUrl = env.MNEMO_PUBLIC_URL ?? `http://${urlHost}:${port}`;
  if (env.MNEMO_SMTP_FROM !== undefined && !env.MNEMO_SMTP_URL) {
    throw new ConfigError('invalid configuration: MNEMO_SMTP_FROM needs MNEMO_SMTP_URL');
  }
  return Object.freeze({
    port,
    host,
    publicUrl,
    databaseUrl: env.MNEMO_DATABASE_URL ?? 'sqlite:./data/mnemo.db',
    databasePoolSize: Number(env.MNEMO_DATABASE_POOL_SIZE ?? '10'),
    databaseStatementTimeoutMs: Number(env.MNEMO_DATABASE_STATEMENT_TIMEOUT_MS ?? '5000'),
    redisUrl: env.MNEMO_REDIS_URL,
    trustProxy: parseTrustProxy(env.MNEMO_TRUST_PROXY),
    corsOrigins: parseCorsOrigins(env.MNEMO_CORS_ORIGINS),
    env: env.MNEMO_ENV ?? 'sandbox',
    rateLimitPerMinute,
    // docs/design.md: a rate of 0 turns every limit off (benchmarks).
    failedAuthPerMinute:
      rateLimitPerMinute === 0 ? 0 : Number(env.MNEMO_FAILED_AUTH_PER_MINUTE ?? '100'),
    importItemsPerMinute:
      rateLimitPerMinute === 0 ? 0 : Number(env.MNEMO_IMPORT_ITEMS_PER_MINUTE ?? '10000'),
    appRateLimitMax: Number(env.MNEMO_APP_RATE_LIMIT_MAX ?? '6000'),
    smtp: env.MNEMO_SMTP_URL
      ? { url: env.MNEMO_SMTP_URL, from: env.MNEMO_SMTP_FROM ?? defaultSender(publicUrl) }
      : undefined,
    signup: env.MNEMO_SIGNUP ?? 'invite',
    invitationDays: Number(env.MNEMO_INVITATION_DAYS ?? '7'),
    outsideIssuer,
    authClockToleranceSeconds: Number(env.MNEMO_AUTH_CLOCK_TOLERANCE_SECONDS ?? '30'),
    accessTokenTtlSeconds: Number(env.MNEMO_ACCESS_TOKEN_TTL_SECONDS ?? '900'),
    clientRegistration: (env.MNEMO_CLIENT_REGISTRATION ?? 'on') === 'on',
    clientRegistrationsPerHour: Number(env.MNEMO_CLIENT_REGISTRATIONS_PER_HOUR ?? '10'),
    clientMetadataPrivateAddresses: env.MNEMO_CLIENT_METADATA_PRIVATE_ADDRESSES === 'on',
    seedDemo: (env.MNEMO_SEED_DEMO ?? 'on') === 'on',
    optimisticConcurrency: env.MNEMO_OPTIMISTIC_CONCURRENCY === 'on',
    maxContentChars: Number(env.MNEMO_MAX_CONTENT_CHARS ?? '8000'),
    tombstoneRetentionDays: Number(env.MNEMO_TOMBSTONE_RETENTION_DAYS ?? '0'),
    catalogLocation: Object.freeze({
      file: env.MNEMO_CONFIG,
      variables: Object.freeze({ ...source }),
      searchEmbeddingModel: env.MNEMO_SEARCH_EMBEDDING_MODEL,
    }),
    gatewayTimeoutMs: Number(env.MNEMO_GATEWAY_TIMEOUT_SECONDS ?? '300') * 1000,
    gatewayWebSocketIdleMs: Number(env.MNEMO_GATEWAY_WS_IDLE_SECONDS ?? '600') * 1000,
    searchEmbeddingTimeoutMs: Number(env.MNEMO_SEARCH_EMBEDDING_TIMEOUT_MS ?? '2000'),
    memoryChat: {
      extraction: env.MNEMO_MEMORY_EXTRACTION ?? 'auto',
      extractionModel: env.MNEMO_MEMORY_EXTRACTION_MODEL,
      recallTokens: Number(env.MNEMO_MEMORY_RECALL_TOKENS ?? '1000'),
      wholeStoreUpTo: Number(env.MNEMO_MEMORY_RECALL_WHOLE_STORE ?? '50'),
    },
    webhooks: {
      allowHttp: env.MNEMO_WEBHOOKS_ALLOW_HTTP === '1',
      allowPrivate: env.MNEMO_WEBHOOKS_ALLOW_PRIVATE_TARGETS === '1',
    },
    logLevel: env.MNEMO_LOG_LEVEL ?? 'info',
  });
}

/** `mnemo <no-reply@{host of the public URL}>`: what emails come from unless MNEMO_SMTP_FROM says. */
function defaultSender(publicUrl: string): string {
  const { hostname } = new URL(publicUrl);
  const domain = /^[0-9.]+$|:/.test(hostname) ? `[${hostname.replace(/^\[|\]$/g, '')}]` : hostname;
  return `mnemo <no-reply@${domain}>`;
}

/**
 * `https://app.example, http://localhost:5173` → its origins. Each must be an origin as a
 * browser sends it in `Origin` (scheme, host, port; no path, no trailing slash), since only an
 * exact match is allowed.
 */
function parseCorsOrigins(value: string | undefined): readonly string[] {
  return parseList(
    'MNEMO_CORS_ORIGINS',
    value,
    isWebOrigin,
    'not an origin (http(s)://host[:port], no path)',
  );
}

function isWebOrigin(entry: string): boolean {
  const url = URL.parse(entry);
  return (url?.protocol === 'http:' || url?.protocol === 'https:') && url.origin === entry;
}

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `10.0.0.0/8, loopback` → its entries, each an address, a CIDR range or a named range. */
function parseTrustProxy(value: string | undefined): readonly string[] {
  return parseList(
    'MNEMO_TRUST_PROXY',
    value,
    isProxyEntry,
    'not an address, CIDR range or loopback|linklocal|uniquelocal',
  );
}

/** A comma-separated variable: its trimmed entries, or a ConfigError naming every bad one. */
function parseList(
  name: string,
  value: string | undefined,
  isValid: (entry: string) => boolean,
  whatIsWrong: string,
): readonly string[] {
  if (value === undefined) return [];
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isValid(entry));
  if (bad.length > 0) {
    throw new ConfigError(
      `invalid configuration: ${name}: ${whatIsWrong}: ${bad.map((e) => JSON.stringify(e)).join(', ')}`,
    );
  }
  return entries;
}

function isProxyEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * Where `mnemo login` keeps its credentials: `$XDG_CONFIG_HOME/mnemo/credentials.json`, by
 * default `~/.config/mnemo/credentials.json`.
 *
 * @example
 * cliCredentialsPath({ XDG_CONFIG_HOME: '/tmp/cfg' }); // '/tmp/cfg/mnemo/credentials.json'
 */
export function cliCredentialsPath(
  source: Record<string, string | undefined> = process.env,
): string {
  // XDG Base Directory Specification: "If $XDG_CONFIG_HOME is either not set or empty, a default
  // equal to $HOME/.config should be used", and a relative path in it "should be ignored".
  const xdg = source.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(source.HOME || homedir(), '.config');
  return join(base, 'mnemo', 'credentials.json');
}
