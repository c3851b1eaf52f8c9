import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import type { CredentialVerifier } from '../credentials/index.ts';
import { builtInIssuer, loadTrustedKeys, mcpResource } from '../credentials/index.ts';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/tables.ts';
import { noStore } from '../platform/error-handler.ts';
import { ApiError } from '../platform/errors.ts';
import { failureOf } from '../platform/failure.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { type RateLimiter, rateLimitHeaders } from '../platform/rate-limit.ts';
import type { OrganizationsService } from '../tenancy/index.ts';
import { type AccountPagesDeps, registerAccountPages } from './account-pages.routes.ts';
import type { SignIn } from './accounts.ts';
import { findActiveAccount } from './accounts.ts';
import type { ConnectionsService } from './connections.service.ts';
import { registerInteractionRoutes } from './interactions.routes.ts';
import { oauthErrorShape } from './oauth-errors.ts';
import { homePage } from './pages/home.page.ts';
import type { ProviderHolder } from './provider-holder.ts';
import { checkProviderParameters, withBodyAgain } from './provider-input.ts';

export interface OAuthRoutesDeps {
  readonly providers: ProviderHolder;
  readonly db: Kysely<Tables>;
  /** For what the sign-in and consent pages write themselves (a sign-in ticket taken). */
  readonly database: Database;
  /** Where consent to an MCP client records the organization it acts in. */
  readonly connections: ConnectionsService;
  /** The organizations an account belongs to: userinfo's, and those a connection may act in. */
  readonly organizations: Pick<OrganizationsService, 'ofAccount'>;
  readonly publicUrl: string;
  readonly verify: CredentialVerifier;
  readonly signIn: SignIn;
  /** Clock skew the memory API allows past a token's expiry: keys stay published that long. */
  readonly clockToleranceMs: number;
  /** Client registrations per client address; absent: no cap. */
  readonly registrationLimiter?: RateLimiter | undefined;
  /** Joining by invitation, sign-up and password reset (account-pages.routes.ts). */
  readonly accountPages: Omit<
    AccountPagesDeps,
    'issuer' | 'publicUrl' | 'database' | 'signIn' | 'securityHeaders' | 'ticketCookie'
  >;
}

/**
 * What every page and answer of the authorization server may do in a browser: nothing loaded
 * from anywhere, no framing (a consent page in a frame is a clickjacking target). The provider
 * adds the hash of its one inline script (the form_post response) to `script-src` itself, so
 * the directive must exist; `'report-sample'` allows nothing on its own, where `'none'` would be
 * ignored beside a hash.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'report-sample'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;

/**
 * The authorization server under `/oauth`: oidc-provider for the protocol, and beside it the
 * parts mnemo serves itself — the sign-in and consent pages, JWKS from the store, userinfo.
 */
export function registerOAuthRoutes(parent: FastifyInstance, deps: OAuthRoutesDeps): void {
  const { publicUrl } = deps;
  const origin = new URL(publicUrl);
  const pathPrefix = origin.pathname === '/' ? '' : origin.pathname;
  const { issuer } = builtInIssuer(publicUrl);
  const callbacks = new WeakMap<Provider, ReturnType<Provider['callback']>>();

  /**
   * Hands a request to the provider as if it were mounted at the issuer's path on the public
   * origin: the Host and scheme are the public URL's whatever the request said (discovery
   * builds every URL from them, so a forged Host would otherwise name another origin), and the
   * client address is the one Fastify resolved through the trusted proxies.
   */
  async function toProvider(request: FastifyRequest, reply: FastifyReply) {
    const form = Buffer.isBuffer(request.body) ? request.body : undefined;
    const refused = checkProviderParameters(request.raw.url ?? '', form);
    if (refused) throw refused;
    if (request.method === 'POST' && pathOf(request.raw.url) === REGISTRATION_PATH) {
      await countRegistration(request);
    }
    const provider = await deps.providers.current();
    let callback = callbacks.get(provider);
    if (!callback) {
      callback = provider.callback();
      callbacks.set(provider, callback);
    }
    reply.hijack();
    const req = request.raw as IncomingMessage & { originalUrl?: string };
    const res: ServerResponse = reply.raw;
    req.originalUrl = `${pathPrefix}${req.url}`;
    req.url = (req.url ?? '').slice('/oauth'.length) || '/';
    req.headers.host = origin.host;
    req.headers['x-forwarded-proto'] = origin.protocol.slice(0, -1);
    req.headers['x-forwarded-for'] = request.ip;
    delete req.headers['x-forwarded-host'];
    delete req.headers.forwarded;
    res.setHeader('cache-control', 'no-store');
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    await callback(form === undefined ? req : withBodyAgain(req, form), res);
  }

  /**
   * Open registration is the one way to write to the store without an account: each client
   * address may register so many clients an hour, wherever they are counted (Redis when
   * configured). Past that, 429 in RFC 7591's error shape, with when to retry.
   */
  async function countRegistration(request: FastifyRequest) {
    if (!deps.registrationLimiter) return;
    const decision = await deps.registrationLimiter.hit(`client-registration ${request.ip}`);
    if (decision.allowed) return;
    throw new ApiError(
      429,
      'temporarily_unavailable',
      `too many client registrations from this address: retry in ${decision.resetSeconds} s`,
      { headers: rateLimitHeaders('client-registration', decision) },
    );
  }

  parent.register(async (scoped) => {
    // The provider reads request bodies itself (it hangs on one already read): nothing here may
    // consume them, but form bodies, read to be checked and handed to it again (toProvider).
    scoped.removeAllContentTypeParsers();
    scoped.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scoped.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'buffer' },
      (_request, body, done) => done(null, body),
    );
    // Before the provider takes the request (building it reads the store's keys).
    scoped.setErrorHandler(sendOAuthError);
    const methods = ['GET', 'HEAD', 'POST', 'OPTIONS', 'PUT', 'PATCH', 'DELETE'] as const;
    scoped.route({
      method: [...methods],
      url: '/oauth/*',
      schema: { hide: true },
      handler: toProvider,
    });
    // RFC 8414 §3: the metadata of the issuer `{public URL}/oauth` is at
    // `/.well-known/oauth-authorization-server` inserted before the issuer's path. The provider
    // serves it under its own path (`/oauth/.well-known/…`, as OpenID discovery), and this is
    // the same document.
    scoped.route({
      method: ['GET', 'HEAD', 'OPTIONS'],
      url: `/.well-known/oauth-authorization-server${pathPrefix}/oauth`,
      schema: { hide: true },
      handler: (request, reply) => {
        request.raw.url = '/oauth/.well-known/oauth-authorization-server';
        return toProvider(request, reply);
      },
    });
    // `GET /oauth` itself is mnemo's page (below); the provider has nothing there.
    scoped.route({
      method: methods.filter((method) => method !== 'GET' && method !== 'HEAD'),
      url: '/oauth',
      schema: { hide: true },
      handler: toProvider,
    });
  });

  parent.register(async (scoped) => {
    scoped.addHook('onRequest', async (_request, reply) => {
      reply.headers(SECURITY_HEADERS);
    });
    scoped.setErrorHandler(sendOAuthError);

    // The address the start banner prints: a page for the person who opens it.
    const home = homePage({ publicUrl });
    for (const url of ['/oauth', '/oauth/']) {
      scoped.get(url, { schema: { hide: true } }, (_request, reply) =>
        reply.type('text/html; charset=utf-8').send(home),
      );
    }

    // Published from the store, not from the provider: a key added by a rotation is published
    // at once, and an old one until its last token expired (the provider's own JWKS shows the
    // keys it was built with).
    scoped.get('/oauth/jwks', { schema: { hide: true } }, async (_request, reply) => {
      const keys = await loadTrustedKeys(deps.db, Date.now(), deps.clockToleranceMs);
      return reply
        .type('application/jwk-set+json; charset=utf-8')
        .send({ keys: keys.map((key) => key.publicJwk) });
    });

    // Userinfo, served here because the provider's refuses audience-bound JWT access tokens and
    // cannot find them (they are never stored): any access token of this issuer for the
    // platform API is accepted, checked exactly as the memory API checks it. A POSTed body is
    // not read: the token comes in the Authorization header (RFC 6750 §2.1).
    scoped.removeAllContentTypeParsers();
    scoped.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const userinfo = async (request: FastifyRequest) => {
      const credential = await deps.verify(request.headers.authorization).catch((error) => {
        throw error instanceof ApiError ? invalidToken(error.message) : error;
      });
      if (credential.issuer !== issuer) throw invalidToken('not a token of this issuer');
      const account = await findActiveAccount(deps.db, credential.userId);
      if (!account) throw new ApiError(403, 'access_denied', 'the account is not active');
      const organizations = await deps.organizations.ofAccount(account.id);
      return {
        sub: account.id,
        ...(account.email === null ? {} : { email: account.email }),
        ...(account.name === null ? {} : { name: account.name }),
        organizations,
      };
    };
    scoped.get('/oauth/me', { schema: { hide: true } }, userinfo);
    scoped.post('/oauth/me', { schema: { hide: true } }, userinfo);
  });

  // The provider's endpoints that take only POST answer any other method 405 with `Allow`, as
  // every other path does, rather than the provider's 404 (CORS preflights still reach it).
  for (const path of ['/oauth/token', '/oauth/token/revocation', '/oauth/device/auth']) {
    registerMethodNotAllowed(parent, path, ['POST']);
  }

  // The sign-in ticket's cookie goes only to the authorization server's pages.
  const ticket = { path: `${pathPrefix}/oauth`, secure: origin.protocol === 'https:' };
  registerInteractionRoutes(parent, {
    providers: deps.providers,
    issuer,
    db: deps.db,
    database: deps.database,
    connections: deps.connections,
    organizations: deps.organizations,
    mcpResource: mcpResource(publicUrl),
    signIn: deps.signIn,
    securityHeaders: SECURITY_HEADERS,
    signUpOpen: deps.accountPages.signUp.open,
    ticketCookie: ticket,
  });
  registerAccountPages(parent, {
    ...deps.accountPages,
    issuer,
    publicUrl,
    database: deps.database,
    signIn: deps.signIn,
    securityHeaders: SECURITY_HEADERS,
    ticketCookie: ticket,
  });
}

/** The provider's registration endpoint (its default route, `/reg`, under the mount). */
const REGISTRATION_PATH = '/oauth/reg';

const pathOf = (url: string | undefined) => (url ?? '').split('?', 1)[0];

/**
 * Errors of the routes mnemo serves under /oauth, in OAuth's shape (RFC 6749 §5.2, RFC 6750
 * §3.1): `{"error", "error_description"}`; `temporarily_unavailable` when the store does not
 * answer, as the memory API's 503.
 */
function sendOAuthError(error: Error, request: FastifyRequest, reply: FastifyReply) {
  noStore(reply).headers(SECURITY_HEADERS);
  if (error instanceof ApiError) {
    return reply
      .headers(error.headers)
      .code(error.status)
      .send({ error: error.code, error_description: error.message });
  }
  const failure = failureOf(error as FastifyError, request);
  return reply
    .headers({ ...failure.headers })
    .code(failure.status)
    .send(oauthErrorShape(failure).body);
}

const invalidToken = (description: string) =>
  new ApiError(401, 'invalid_token', description, {
    headers: {
      'www-authenticate': `Bearer error="invalid_token", error_description="${description.replace(/"/g, "'")}"`,
    },
  });
