import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { errors, type default as Provider } from 'oidc-provider';
import { PLATFORM_SCOPES } from '../credentials/index.ts';
import { isStoreUnavailable } from '../db/availability.ts';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/tables.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../platform/failure.ts';
import {
  type OrganizationsService,
  takeSignInTicket,
  ticketCookie,
  ticketOf,
} from '../tenancy/index.ts';
import { findActivePerson, type SignIn } from './accounts.ts';
import type { ConnectionsService } from './connections.service.ts';
import { registerPageForms, sendPage } from './page-forms.ts';
import { type ClientSource, consentPage, noOrganizationPage } from './pages/consent.page.ts';
import { errorPage } from './pages/error.page.ts';
import { signInPage } from './pages/sign-in.page.ts';
import type { ProviderHolder } from './provider-holder.ts';

export interface InteractionRoutesDeps {
  readonly providers: ProviderHolder;
  /** `{MNEMO_PUBLIC_URL}/oauth`: the pages' links are absolute under it. */
  readonly issuer: string;
  readonly db: Kysely<Tables>;
  readonly database: Database;
  /** Where a connection's organization is written. */
  readonly connections: ConnectionsService;
  /** The organizations an account may connect a client in. */
  readonly organizations: Pick<OrganizationsService, 'ofAccount'>;
  /** The MCP server's resource indicator: a request for it makes a connection. */
  readonly mcpResource: string;
  readonly signIn: SignIn;
  readonly securityHeaders: Readonly<Record<string, string>>;
  /** Whether the sign-in page offers "Create an account" (`MNEMO_SIGNUP=open`). */
  readonly signUpOpen: boolean;
  /** The path the sign-in ticket cookie is set for (the issuer's), and whether it is Secure. */
  readonly ticketCookie: { readonly path: string; readonly secure: boolean };
}

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/** What the identity scopes mean, for the consent page; the platform's are in scopes.ts. */
const IDENTITY_SCOPES: Record<string, string> = {
  openid: 'Know who you are',
  email: 'See your email address',
  profile: 'See your name',
  offline_access: 'Stay connected when you are not using it',
};

const describeScope = (name: string) => ({
  name,
  description:
    (PLATFORM_SCOPES as Record<string, string>)[name] ?? IDENTITY_SCOPES[name] ?? 'Access',
});

const CHOOSE_ORGANIZATION = 'Choose the organization it acts in.';

const SIGN_IN_MESSAGES = {
  'wrong-credentials': { status: 401, text: 'Wrong email or password.' },
  suspended: { status: 403, text: 'This account is suspended.' },
  banned: { status: 403, text: 'This account is closed.' },
} as const;

/**
 * The pages the provider sends a person to (`interactions.url`): sign in, then, for a client
 * that is not mnemo's own, consent. A request for the MCP server is a connection: whatever the
 * client, the person allows it and chooses the organization it acts in, recorded beside the
 * grant. Each step ends by handing the result back to the provider, which continues the
 * authorization (or device) request it paused.
 */
export function registerInteractionRoutes(parent: FastifyInstance, deps: InteractionRoutesDeps) {
  const { providers, db, signIn } = deps;

  parent.register(async (app) => {
    // The sign-in form's email is looked up in the store: held to the text rule first.
    registerPageForms(app, {
      securityHeaders: deps.securityHeaders,
      refuse: (message) => new errors.InvalidRequest(message),
    });
    app.setErrorHandler((error: Error, request, reply) => {
      if (isStoreUnavailable(error)) {
        request.log.warn({ err: error }, 'store unavailable');
        reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
        return sendPage(
          reply,
          503,
          errorPage({
            error: 'temporarily_unavailable',
            description: 'The service is briefly unavailable. Try again in a moment.',
          }),
        );
      }
      // The interaction cookie is missing or expired (another browser, a stale tab): nothing
      // to resume, the person starts again at the application.
      if (error instanceof errors.SessionNotFound) {
        return sendPage(
          reply,
          400,
          errorPage({
            error: 'interaction_expired',
            description:
              'This sign-in has expired or was started in another browser. Go back to the application and start again.',
          }),
        );
      }
      if (error instanceof errors.OIDCProviderError && error.status < 500) {
        return sendPage(
          reply,
          error.status,
          errorPage({ error: error.error, description: error.error_description ?? '' }),
        );
      }
      request.log.error({ err: error }, 'interaction failed');
      return sendPage(
        reply,
        500,
        errorPage({ error: 'server_error', description: 'The sign-in could not be completed.' }),
      );
    });

    const base = '/oauth/interaction/:uid';
    // Absolute, from the issuer: behind a proxy that strips a path prefix of the public URL,
    // a path from the root would leave it.
    const pageUrl = (uid: string) => `${deps.issuer}/interaction/${uid}`;
    const actions = (uid: string) => ({
      login: `${pageUrl(uid)}/login`,
      consent: `${pageUrl(uid)}/consent`,
      abort: `${pageUrl(uid)}/abort`,
    });

    /** Where the sign-in page's form and links go. */
    const signInLinks = (uid: string) => ({
      action: actions(uid).login,
      abortAction: actions(uid).abort,
      forgotUrl: `${deps.issuer}/password-reset`,
      signUpUrl: deps.signUpOpen ? `${deps.issuer}/sign-up?interaction=${uid}` : undefined,
    });

    /**
     * The account of this browser's sign-in ticket (sign-in-tickets.ts), taken; the cookie is
     * cleared whatever it held. Only an active person is signed in by it.
     */
    async function takeTicket(request: FastifyRequest, reply: FastifyReply) {
      const ticket = ticketOf(request.headers.cookie);
      if (ticket === undefined) return undefined;
      reply.header('set-cookie', ticketCookie(undefined, deps.ticketCookie));
      const userId = await deps.database.write((trx) => takeSignInTicket(trx, ticket));
      return userId && (await findActivePerson(db, userId))?.id;
    }

    /** The paused interaction this browser holds, checked against the path's uid. */
    async function interaction(
      request: FastifyRequest<{ Params: { uid: string } }>,
      reply: FastifyReply,
    ) {
      const provider = await providers.current();
      const details = await provider.interactionDetails(request.raw, reply.raw);
      if (details.uid !== request.params.uid) {
        throw new errors.SessionNotFound('the interaction is not the one this browser holds');
      }
      return { provider, details };
    }

    async function describeClient(provider: Provider, details: Interaction) {
      const id = String(details.params.client_id);
      const client = await provider.Client.find(id);
      const firstParty = (client?.metadata() as { mnemo_first_party?: boolean } | undefined)
        ?.mnemo_first_party;
      // mnemo's own clients say true, an operator's false (client-metadata.ts); a client that
      // describes itself says nothing, and its name is its own claim.
      const source: ClientSource | undefined = URL.canParse(id)
        ? { kind: 'metadata-document', host: new URL(id).host }
        : firstParty === undefined
          ? { kind: 'registered' }
          : undefined;
      return {
        id,
        name: client?.clientName ?? id,
        firstParty: firstParty === true,
        ...(source ? { source } : {}),
      };
    }

    /** Whether the request asks for the MCP server: its grant becomes a connection. */
    const connects = (details: Interaction) =>
      [details.params.resource].flat().includes(deps.mcpResource);

    /** The consent page of a request, with what went wrong the first time. */
    async function consent(
      reply: FastifyReply,
      details: Interaction,
      client: Awaited<ReturnType<typeof describeClient>>,
      account: { id: string; email: string },
      shown: { status: number; chosen?: string; error?: string } = { status: 200 },
    ) {
      const uid = details.uid;
      const organizations = connects(details)
        ? await deps.organizations.ofAccount(account.id)
        : undefined;
      if (organizations?.length === 0) {
        return sendPage(
          reply,
          shown.status,
          noOrganizationPage({
            abortAction: actions(uid).abort,
            clientName: client.name,
            userEmail: account.email,
          }),
        );
      }
      return sendPage(
        reply,
        shown.status,
        consentPage({
          action: actions(uid).consent,
          abortAction: actions(uid).abort,
          clientName: client.name,
          ...(client.source ? { clientSource: client.source } : {}),
          userEmail: account.email,
          scopes: requestedScopes(details).map(describeScope),
          ...(organizations ? { organizations } : {}),
          ...(shown.chosen === undefined ? {} : { chosen: shown.chosen }),
          ...(shown.error === undefined ? {} : { error: shown.error }),
        }),
      );
    }

    /** Hands the result to the provider and sends the browser back to it. */
    async function finish(
      request: FastifyRequest,
      reply: FastifyReply,
      provider: Provider,
      result: Parameters<Provider['interactionResult']>[2],
    ) {
      const returnTo = await provider.interactionResult(request.raw, reply.raw, result, {
        mergeWithLastSubmission: false,
      });
      return reply.redirect(returnTo, 303);
    }

    app.get<{ Params: { uid: string } }>(
      base,
      { schema: { hide: true } },
      async (request, reply) => {
        const { provider, details } = await interaction(request, reply);
        const client = await describeClient(provider, details);
        const uid = details.uid;
        if (details.prompt.name === 'login') {
          // Just joined, signed up or set a new password in this browser: signed in by that.
          const ticketed = await takeTicket(request, reply);
          if (ticketed) return finish(request, reply, provider, { login: { accountId: ticketed } });
          return sendPage(reply, 200, signInPage({ ...signInLinks(uid), clientName: client.name }));
        }
        const accountId = details.session?.accountId;
        const account = accountId ? await findActivePerson(db, accountId) : undefined;
        if (!account) {
          return finish(request, reply, provider, {
            error: 'access_denied',
            error_description: 'the account is not active',
          });
        }
        // mnemo's own applications are trusted with what they ask; others must be allowed,
        // and a connection always asks where it acts.
        if (client.firstParty && !connects(details)) {
          return finish(request, reply, provider, {
            consent: { grantId: await grantAll(provider, details) },
          });
        }
        return consent(reply, details, client, account);
      },
    );

    app.post<{ Params: { uid: string }; Body: Record<string, string> }>(
      `${base}/login`,
      { schema: { hide: true } },
      async (request, reply) => {
        const { provider, details } = await interaction(request, reply);
        if (details.prompt.name !== 'login') return reply.redirect(pageUrl(details.uid), 303);
        const email = String(request.body?.email ?? '');
        const password = String(request.body?.password ?? '');
        const outcome = await signIn(email, password, request.ip);
        if (outcome.ok) {
          return finish(request, reply, provider, { login: { accountId: outcome.userId } });
        }
        const client = await describeClient(provider, details);
        const page = (status: number, error: string) =>
          sendPage(
            reply,
            status,
            signInPage({ ...signInLinks(details.uid), clientName: client.name, email, error }),
          );
        if (outcome.reason === 'throttled') {
          const wait = outcome.retryAfterSeconds ?? 60;
          reply.header('retry-after', String(wait));
          return page(429, `Too many failed sign-ins. Try again in ${wait} s.`);
        }
        const message = SIGN_IN_MESSAGES[outcome.reason];
        return page(message.status, message.text);
      },
    );

    app.post<{ Params: { uid: string }; Body: Record<string, string> }>(
      `${base}/consent`,
      { schema: { hide: true } },
      async (request, reply) => {
        const { provider, details } = await interaction(request, reply);
        if (details.prompt.name !== 'consent') return reply.redirect(pageUrl(details.uid), 303);
        if (!connects(details)) {
          return finish(request, reply, provider, {
            consent: { grantId: await grantAll(provider, details) },
          });
        }
        // A connection: the organization chosen must be one of the person's, as of now.
        const accountId = details.session?.accountId;
        const account = accountId ? await findActivePerson(db, accountId) : undefined;
        if (!account) {
          return finish(request, reply, provider, {
            error: 'access_denied',
            error_description: 'the account is not active',
          });
        }
        const client = await describeClient(provider, details);
        const chosen = request.body?.organization;
        const organizations = await deps.organizations.ofAccount(account.id);
        const organization = organizations.find((org) => org.id === chosen);
        if (!organization) {
          return consent(reply, details, client, account, {
            status: organizations.length === 0 ? 403 : 400,
            ...(chosen === undefined ? {} : { chosen }),
            error: CHOOSE_ORGANIZATION,
          });
        }
        const grantId = await grantAll(provider, details);
        await deps.connections.save({
          grantId,
          userId: account.id,
          clientId: client.id,
          clientName: client.name,
          orgId: organization.id,
        });
        return finish(request, reply, provider, { consent: { grantId } });
      },
    );

    app.post<{ Params: { uid: string } }>(
      `${base}/abort`,
      { schema: { hide: true } },
      async (request, reply) => {
        const { provider } = await interaction(request, reply);
        return finish(request, reply, provider, {
          error: 'access_denied',
          error_description: 'the person declined',
        });
      },
    );
  });
}

interface ConsentDetails {
  missingOIDCScope?: string[];
  missingOIDCClaims?: string[];
  missingResourceScopes?: Record<string, string[]>;
}

/**
 * Every scope the request asks for and the grant lacks: what the consent page lists. The
 * platform's scopes are also the provider's (provider.ts, so clients may register them), so
 * they come back as OIDC scopes too: they are listed only where a resource takes them, which
 * says what they allow (one asked of the MCP server that it does not take allows nothing).
 */
function requestedScopes(details: Interaction): string[] {
  const missing = details.prompt.details as ConsentDetails;
  const scopes = new Set<string>(
    (missing.missingOIDCScope ?? []).filter((scope) => scope in IDENTITY_SCOPES),
  );
  for (const list of Object.values(missing.missingResourceScopes ?? {})) {
    for (const scope of list) scopes.add(scope);
  }
  return [...scopes];
}

/** Adds what the request asks for to the person's grant for this client, and saves it. */
async function grantAll(provider: Provider, details: Interaction): Promise<string> {
  const accountId = details.session?.accountId;
  const clientId = String(details.params.client_id);
  const grant =
    (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
    new provider.Grant({ accountId, clientId });
  const missing = details.prompt.details as ConsentDetails;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}
