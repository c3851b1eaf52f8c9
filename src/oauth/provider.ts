import type { FastifyBaseLogger } from 'fastify';
import type { JWK } from 'jose';
import Provider, { type ClientMetadata, type Configuration, errors } from 'oidc-provider';
import { builtInIssuer, PLATFORM_SCOPE_NAMES, type SigningKey } from '../credentials/index.ts';
import { isStoreUnavailable } from '../db/availability.ts';
import type { Database } from '../db/database.ts';
import { STORE_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE_MESSAGE } from '../platform/failure.ts';
import { findActiveAccount } from './accounts.ts';
import { builtInClients, findClientMetadata } from './client-metadata.ts';
import { createScopeResolver } from './default-scope.ts';
import { createOidcAdapter } from './oidc-adapter.ts';
import {
  type ClientRulesOptions,
  clientRules,
  compareHashedClientSecrets,
} from './provider-clients.ts';
import { deviceFlow, renderError, rpInitiatedLogout } from './provider-pages.ts';
import { tokenRules } from './provider-tokens.ts';

export interface ProviderOptions extends ClientRulesOptions {
  readonly database: Database;
  /** Where the provider's own server errors are reported. */
  readonly log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  readonly publicUrl: string;
  /** Lifetime of access and ID tokens, seconds. */
  readonly accessTokenTtlSeconds: number;
  /** Signs cookies; from the store, so every process reads every other's. */
  readonly cookieKey: string;
}

/**
 * The platform's scopes are the resource servers' (resourceIndicators, provider-tokens.ts);
 * listed here as well so that a client may register them (RFC 7591 `scope`: the provider accepts
 * only these), discovery names them, and a client's registered `scope` bounds what it may ask.
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
 * The authorization server, configured for mnemo (docs/oauth.md says what it does). Built with the
 * store's trusted keys, newest first: it signs with the first. Rebuilt when the keys change
 * (provider-holder.ts), since the provider fixes its keys when built. What clients may be
 * (provider-clients.ts), what its tokens carry (provider-tokens.ts) and the pages it renders
 * itself (provider-pages.ts) are each in a module of their own; this is the rest, and the whole.
 */
export function createProvider(options: ProviderOptions, keys: readonly SigningKey[]): Provider {
  const { database, publicUrl, accessTokenTtlSeconds } = options;
  const { db } = database;
  const { issuer } = builtInIssuer(publicUrl);
  const signingKid = keys[0]?.kid;
  if (!signingKid) throw new Error('no signing key in the store');
  const https = publicUrl.startsWith('https:');
  const { registration, clientIdMetadataDocument, ...clients } = clientRules(options);
  const { resourceIndicators, ...tokens } = tokenRules({
    database,
    publicUrl,
    accessTokenTtlSeconds,
    signingKid,
  });

  const configuration: Configuration = {
    adapter: createOidcAdapter(database, {
      findClient: async (id) => (await findClientMetadata(db, id)) as ClientMetadata | undefined,
    }),
    clients: builtInClients(publicUrl),
    ...clients,
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
      registration,
      clientIdMetadataDocument,
      deviceFlow,
      rpInitiatedLogout: rpInitiatedLogout(publicUrl),
      resourceIndicators,
    },
    ...tokens,
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'],
      userinfoSigningAlgValues: ['RS256'],
      requestObjectSigningAlgValues: ['RS256', 'PS256', 'ES256', 'EdDSA'],
    },
    renderError,
  };

  const provider = new Provider(issuer, configuration);
  reportStoreFailures(provider, options.log);
  answerUnknownPathsInOAuthShape(provider);
  // The request's scheme and host are pinned to the public URL before the provider sees them
  // (oauth.routes.ts), so it may believe X-Forwarded-Proto: that is what marks cookies Secure
  // behind TLS termination.
  provider.proxy = true;
  compareHashedClientSecrets(provider);
  return provider;
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
