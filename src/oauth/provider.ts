import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { JWK } from 'jose';
import Provider, {
  type ClientMetadata,
  type Configuration,
  errors,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import { MCP_SCOPE_NAMES, PLATFORM_SCOPE_NAMES } from '../auth/scopes.ts';
import { isStoreUnavailable } from '../db/availability.ts';
import type { Database } from '../db/database.ts';
import { listUserOrganizations } from '../orgs/orgs.repository.ts';
import { STORE_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE_MESSAGE } from '../platform/error-handler.ts';
import { findActiveAccount } from './accounts.ts';
import {
  builtInClients,
  EXTRA_CLIENT_METADATA,
  findClientMetadata,
  type MnemoClientMetadata,
  STUDIO_CLIENT_ID,
  selfDescribedClientProblem,
} from './client-metadata.ts';
import { createClientId, createClientSecret, verifyClientSecret } from './client-secrets.ts';
import { findConnectionOfGrant } from './connections.repository.ts';
import { createScopeResolver } from './default-scope.ts';
import { createOidcAdapter } from './oidc-adapter.ts';
import { deviceCodePage, deviceConfirmPage, deviceDonePage } from './pages/device.pages.ts';
import { errorPage } from './pages/error.page.ts';
import {
  SUBMIT_ON_LOAD_SCRIPT,
  signedOutPage,
  signingOutPage,
  signOutPage,
} from './pages/sign-out.pages.ts';
import { builtInIssuer, mcpResource, RATE_LIMIT_CLAIM } from './platform-credential.ts';
import { extendKeyLease, type SigningKey } from './signing-keys.ts';

export interface ProviderOptions {
  readonly database: Database;
  /** Where the provider's own server errors are reported. */
  readonly log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  readonly publicUrl: string;
  /** Lifetime of access and ID tokens, seconds. */
  readonly accessTokenTtlSeconds: number;
  /** Signs cookies; from the store, so every process reads every other's. */
  readonly cookieKey: string;
  /** Open dynamic client registration (RFC 7591). */
  readonly clientRegistration: boolean;
  /**
   * Whether the documents the provider fetches (client ID metadata documents) may be on
   * special-use addresses (loopback, private, link-local…); off, its own guard refuses them.
   */
  readonly fetchPrivateAddresses: boolean;
}

/**
 * The version of the Client ID Metadata Document draft the provider implements: its feature is
 * experimental, and enabled only with this acknowledged (a newer provider with another draft
 * refuses to start until this is checked against it).
 */
const CLIENT_ID_METADATA_DOCUMENT_DRAFT = 'draft-02';

/** The largest client ID metadata document fetched (the draft: "SHOULD" limit it; 5 KiB). */
const CLIENT_METADATA_DOCUMENT_BYTES = 5 * 1024;

/**
 * How long a document that could not be fetched (no answer within the provider's 2.5 s, a
 * refused connection, a status other than 200) is not asked for again. The provider looks a
 * client up twice when the first lookup fails (its error handler tries again): without this, a
 * person would wait twice the time limit, and every failing request would fetch twice.
 */
const FAILED_FETCH_MEMORY_MS = 10_000;

/**
 * The platform's scopes are the resource servers' (resourceIndicators below); listed here as well
 * so that a client may register them (RFC 7591 `scope`: the provider accepts only these),
 * discovery names them, and a client's registered `scope` bounds what it may ask.
 */
const SCOPES = ['openid', 'offline_access', 'email', 'profile', ...PLATFORM_SCOPE_NAMES] as const;

/** Lifetimes of what is not an access token, seconds. */
const TTL = {
  AuthorizationCode: 60,
  DeviceCode: 10 * 60,
  Interaction: 60 * 60,
  RefreshToken: 30 * 24 * 3600,
  Session: 14 * 24 * 3600,
  Grant: 365 * 24 * 3600,
} as const;

/**
 * A signer raises its key's lease this far past the token it signs, so it writes once per
 * stretch rather than once per token; a retired key outlives its last token by at most this.
 */
const maxLeaseSlackMs = 5 * 60 * 1000;

/**
 * The authorization server, configured for mnemo (docs/oauth.md says what it does). Built with the
 * store's trusted keys, newest first: it signs with the first. Rebuilt when the keys change
 * (provider-holder.ts), since the provider fixes its keys when built.
 */
export function createProvider(options: ProviderOptions, keys: readonly SigningKey[]): Provider {
  const { database, publicUrl, accessTokenTtlSeconds } = options;
  const { db } = database;
  const { issuer, audience } = builtInIssuer(publicUrl);
  const mcp = mcpResource(publicUrl);
  const signingKid = keys[0]?.kid;
  if (!signingKid) throw new Error('no signing key in the store');
  const https = publicUrl.startsWith('https:');
  const leases = createLeaseWriter(database, signingKid, {
    slackMs: Math.min(accessTokenTtlSeconds * 1000, maxLeaseSlackMs),
  });

  /** The user a token speaks for: the signed-in user, or a client's service user. */
  async function subjectOf(ctx: KoaContextWithOIDC, accountId: string | undefined) {
    if (accountId) return accountId;
    const serviceUser = (ctx.oidc.client?.metadata() as { mnemo_service_user?: string } | undefined)
      ?.mnemo_service_user;
    if (!serviceUser) throw new errors.UnauthorizedClient('the client has no service user');
    return serviceUser;
  }

  /** `org_id` and `connection_id` of the grant's connection (connections.repository.ts). */
  async function mcpClaims(token: object) {
    const grantId = 'grantId' in token ? token.grantId : undefined;
    if (typeof grantId !== 'string') {
      throw new errors.InvalidTarget(
        'the MCP server takes tokens of a connection a person allowed, not client credentials',
      );
    }
    const connection = await findConnectionOfGrant(db, grantId);
    if (!connection) throw new errors.InvalidGrant('the connection was revoked');
    return { org_id: connection.orgId, connection_id: connection.id };
  }

  const failedFetches = createFailureMemory(FAILED_FETCH_MEMORY_MS);
  const fetchUnguarded: typeof globalThis.fetch = (url, init) => {
    const { dispatcher: _guard, ...unguarded } = (init ?? {}) as RequestInit & {
      dispatcher?: unknown;
    };
    return globalThis.fetch(url, unguarded);
  };
  // The provider's own guard against special-use addresses rides on `init.dispatcher`;
  // leaving it out lets an operator's own network serve metadata documents.
  const fetchDocument = options.fetchPrivateAddresses ? fetchUnguarded : globalThis.fetch;

  const configuration: Configuration = {
    adapter: createOidcAdapter(database, {
      findClient: async (id) => (await findClientMetadata(db, id)) as ClientMetadata | undefined,
    }),
    clients: builtInClients(publicUrl),
    extraClientMetadata: {
      properties: [...EXTRA_CLIENT_METADATA],
      // Called for each of the properties: the client's whole metadata is checked at the first.
      validator(ctx, key, _value, metadata) {
        if (key !== EXTRA_CLIENT_METADATA[0]) return;
        const describesItself =
          ctx?.oidc?.route === 'registration' || URL.canParse(String(metadata.client_id));
        if (!describesItself) return;
        const problem = selfDescribedClientProblem(metadata as Partial<MnemoClientMetadata>);
        if (problem) throw new errors.InvalidClientMetadata(problem);
      },
    },
    // A browser app may call the token and revocation endpoints from the origins of its own
    // redirect URIs, and only a public client (a confidential one has a server to call from).
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' &&
      client.clientAuthMethod === 'none' &&
      client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) === true,
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    responseTypes: ['code'],
    jwks: { keys: keys.map((key) => ({ ...key.privateJwk, use: 'sig' }) as JWK) as never },
    cookies: {
      keys: [options.cookieKey],
      long: { signed: true, httpOnly: true, sameSite: 'lax', secure: https },
      short: { signed: true, httpOnly: true, sameSite: 'lax', secure: https },
    },
    claims: {
      openid: ['sub'],
      email: ['email'],
      profile: ['name'],
    },
    scopes: [...SCOPES],
    // An authorization request without `scope` gets the client's default, or invalid_scope
    // before any page (default-scope.ts).
    extraParams: { scope: createScopeResolver(SCOPES) },
    async findAccount(_ctx, sub) {
      const account = await findActiveAccount(db, sub);
      if (!account) return undefined;
      return {
        accountId: account.id,
        claims: () => ({
          sub: account.id,
          ...(account.email === null ? {} : { email: account.email }),
          ...(account.name === null ? {} : { name: account.name }),
        }),
      };
    },
    interactions: {
      url: (_ctx, interaction) => `${issuer}/interaction/${interaction.uid}`,
    },
    pkce: { required: () => true },
    async fetch(url, init) {
      const at = String(url instanceof Request ? url.url : url);
      try {
        const response = await fetchDocument(url, init);
        if (response.status !== 200) failedFetches.add(at);
        return response;
      } catch (error) {
        failedFetches.add(at);
        throw error;
      }
    },
    // Nothing fetched is unbounded: a client that describes itself names these URLs.
    fetchResponseBodyLimits: {
      'client_id metadata document': CLIENT_METADATA_DOCUMENT_BYTES,
      jwks_uri: CLIENT_METADATA_DOCUMENT_BYTES * 10,
      sector_identifier_uri: CLIENT_METADATA_DOCUMENT_BYTES * 10,
    },
    // Refresh tokens go to the clients allowed the grant, whether or not they asked for
    // offline_access, and are replaced on every use (OAuth 2.1 §4.3.1).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: async () => false,
    ttl: {
      ...TTL,
      AccessToken: accessTokenTtlSeconds,
      ClientCredentials: accessTokenTtlSeconds,
      IdToken: accessTokenTtlSeconds,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: {
        enabled: true,
        // RFC 7009 §2.1: a client revokes only its own tokens; a public client asking for
        // another's is answered as if it worked, a confidential one is told it may not.
        allowedPolicy: async (_ctx, client, token) => {
          if (token.clientId === client.clientId) return true;
          if (client.clientAuthMethod === 'none') return false;
          throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
        },
      },
      // Our own route serves userinfo (oauth.routes.ts); enabled so discovery names it.
      userinfo: { enabled: true },
      // RFC 7591, open: any client may register (as MCP clients do), held to
      // selfDescribedClientProblem and counted per address (oauth.routes.ts). No registration
      // access token: a registered client cannot be read back or changed (RFC 7592 is off).
      registration: {
        enabled: options.clientRegistration,
        initialAccessToken: false,
        issueRegistrationAccessToken: false,
        idFactory: () => createClientId(),
        secretFactory: () => createClientSecret(),
      },
      // The client's id is the https URL of its metadata, fetched when first seen (https only,
      // 2.5 s, CLIENT_METADATA_DOCUMENT_BYTES, cached by its Cache-Control).
      clientIdMetadataDocument: {
        enabled: true,
        ack: CLIENT_ID_METADATA_DOCUMENT_DRAFT,
        allowFetch: async (_ctx, clientId) => !failedFetches.has(clientId),
      },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource: async (ctx, _form, _out, err) => {
          ctx.body = deviceCodePage({
            action: ctx.oidc.urlFor('code_verification'),
            xsrf: ctx.oidc.session?.state?.secret as string,
            ...(err ? { error: deviceCodeError(err) } : {}),
          });
        },
        userCodeConfirmSource: async (ctx, _form, client, _deviceInfo, userCode) => {
          ctx.body = deviceConfirmPage({
            action: ctx.oidc.urlFor('code_verification'),
            xsrf: ctx.oidc.session?.state?.secret as string,
            userCode,
            clientName: client.clientName ?? client.clientId,
          });
        },
        successSource: async (ctx) => {
          const client = ctx.oidc.client;
          ctx.body = deviceDonePage({ clientName: client?.clientName ?? client?.clientId ?? '' });
        },
      },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx) => {
          const action = ctx.oidc.urlFor('end_session_confirm');
          const xsrf = ctx.oidc.session?.state?.secret as string;
          // The provider validated the hint (signature, audience) before this runs: it proves
          // the studio asked, so its one-click sign-out needs no second question.
          if (ctx.oidc.client?.clientId === STUDIO_CLIENT_ID && ctx.oidc.params?.id_token_hint) {
            allowInlineScript(ctx, SUBMIT_ON_LOAD_SCRIPT);
            ctx.body = signingOutPage({ action, xsrf });
            return;
          }
          ctx.body = signOutPage({ action, xsrf, host: new URL(publicUrl).host });
        },
        postLogoutSuccessSource: async (ctx) => {
          const name = ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId;
          ctx.body = signedOutPage(name === undefined ? {} : { clientName: name });
        },
      },
      resourceIndicators: {
        enabled: true,
        // Two resources: the platform API, the default one (a client that names none still
        // gets a JWT for it; without useGrantedResource, flows that ask for `openid` would get
        // an opaque token instead), and the MCP server, which takes the memory scopes only.
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          const scopes =
            indicator === audience
              ? PLATFORM_SCOPE_NAMES
              : indicator === mcp
                ? MCP_SCOPE_NAMES
                : undefined;
          if (!scopes) throw new errors.InvalidTarget();
          return {
            scope: scopes.join(' '),
            audience: indicator,
            accessTokenTTL: accessTokenTtlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    async extraTokenClaims(ctx, token) {
      const accountId = accountOf(token);
      // An MCP token acts in the organization its connection names (the consent page's choice).
      if ((token as { resourceServer?: { audience?: string } }).resourceServer?.audience === mcp) {
        return mcpClaims(token);
      }
      const subject = await subjectOf(ctx, accountId);
      // A client-credentials client acts only while its service user may.
      if (!accountId && !(await findActiveAccount(db, subject))) {
        throw new errors.UnauthorizedClient('the client’s service user is not active');
      }
      const organizations = await listUserOrganizations(db, subject);
      return { org_ids: organizations.map((org) => org.id) };
    },
    formats: {
      customizers: {
        async jwt(ctx, token, jwt) {
          // Client credentials speak for the bound service user, not the client. Only here can
          // `sub` change: extraTokenClaims cannot overwrite it.
          const account = accountOf(token);
          jwt.payload.sub = await subjectOf(ctx, account);
          // An app's own rate, as its owners set it when the token was issued.
          const rate = (ctx.oidc.client?.metadata() as MnemoClientMetadata | undefined)
            ?.mnemo_rate_limit;
          if (!account && rate !== undefined) jwt.payload[RATE_LIMIT_CLAIM] = rate;
          // The provider leaves `scope` out when none was granted, and a token without the
          // claim is read as the spec's full-access credential: say "none" explicitly.
          jwt.payload.scope ??= '';
          // An ID token issued beside it expires no later: one lease covers both.
          await leases.cover(((jwt.payload.exp as number) ?? 0) * 1000);
        },
      },
    },
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'],
      userinfoSigningAlgValues: ['RS256'],
      requestObjectSigningAlgValues: ['RS256', 'PS256', 'ES256', 'EdDSA'],
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = errorPage({
        error: String(out.error),
        ...(out.error_description === undefined
          ? {}
          : { description: String(out.error_description) }),
      });
    },
  };

  const provider = new Provider(issuer, configuration);
  reportStoreFailures(provider, options.log);
  answerUnknownPathsInOAuthShape(provider);
  // The request's scheme and host are pinned to the public URL before the provider sees them
  // (oauth.routes.ts), so it may believe X-Forwarded-Proto: that is what marks cookies Secure
  // behind TLS termination.
  provider.proxy = true;
  // Only the SHA-256 of a client secret is stored: the provider would compare plain secrets.
  provider.Client.prototype.compareClientSecret = function compare(
    this: {
      clientSecret?: string;
    },
    actual: string,
  ) {
    return this.clientSecret !== undefined && verifyClientSecret(actual, this.clientSecret);
  } as never;
  return provider;
}

/** URLs remembered for `ttlMs` each, at most a thousand: the oldest are forgotten first. */
function createFailureMemory(ttlMs: number) {
  const until = new Map<string, number>();
  return {
    add(url: string) {
      until.delete(url);
      until.set(url, Date.now() + ttlMs);
      if (until.size > 1000) until.delete(until.keys().next().value as string);
    },
    has(url: string) {
      const expiry = until.get(url);
      if (expiry === undefined) return false;
      if (expiry > Date.now()) return true;
      until.delete(url);
      return false;
    },
  };
}

/** Adds one inline script to the page's CSP by its hash, as the provider does for form_post. */
function allowInlineScript(ctx: KoaContextWithOIDC, script: string) {
  const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
  const csp = ctx.response.get('content-security-policy');
  ctx.set('content-security-policy', csp.replace(/script-src([^;]*)/, `script-src$1 ${hash}`));
}

/**
 * A path under /oauth that the provider does not serve is 404 in RFC 6749's shape, as every
 * other error there, rather than Koa's plain-text `Not Found`.
 */
function answerUnknownPathsInOAuthShape(provider: Provider) {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body != null) return;
    ctx.body = { error: 'invalid_request', error_description: 'not found' };
    ctx.status = 404;
  });
}

/** The signed-in user of an access token; client-credentials tokens have none. */
const accountOf = (token: object): string | undefined =>
  'accountId' in token && typeof token.accountId === 'string' ? token.accountId : undefined;

/**
 * The provider answers any failure of its own as 500 `server_error`. One of the store (down,
 * or too slow) is a 503 `temporarily_unavailable` with Retry-After instead, as everywhere else
 * in mnemo: the same request may succeed shortly. Every such failure reaches the log.
 */
function reportStoreFailures(provider: Provider, log: ProviderOptions['log']) {
  const failures = new WeakMap<object, unknown>();
  provider.on('server_error', (ctx: object, error: unknown) => {
    failures.set(ctx, error);
    if (isStoreUnavailable(error)) log.warn({ err: error }, 'store unavailable');
    else log.error({ err: error }, 'authorization server error');
  });
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status !== 500 || !isStoreUnavailable(failures.get(ctx))) return;
    ctx.status = 503;
    ctx.set('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    if (ctx.body && typeof ctx.body === 'object') {
      ctx.body = { error: 'temporarily_unavailable', error_description: STORE_UNAVAILABLE_MESSAGE };
    }
  });
}

function deviceCodeError(err: Error): string {
  if (err.name === 'NoCodeError') return 'Enter the code your device shows.';
  if (err.name === 'NotFoundError') return 'That code is not known. Check it and try again.';
  if (err.name === 'ExpiredError') return 'That code has expired. Start again on your device.';
  if (err.name === 'AlreadyUsedError') return 'That code has already been used.';
  if (err.name === 'AbortedError') return 'The sign-in was cancelled.';
  return 'Something went wrong. Try again.';
}

/**
 * Keeps the signing key's lease ahead of every token signed with it (signing-keys.ts), writing
 * only when a token would outlive what is already recorded.
 */
function createLeaseWriter(database: Database, kid: string, options: { slackMs: number }) {
  let recorded = 0;
  return {
    async cover(untilMs: number): Promise<void> {
      if (untilMs <= recorded) return;
      const target = untilMs + options.slackMs;
      await database.write((trx) => extendKeyLease(trx, kid, target));
      recorded = Math.max(recorded, target);
    },
  };
}
