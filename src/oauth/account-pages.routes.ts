import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreUnavailable } from '../db/availability.ts';
import type { Database } from '../db/database.ts';
import { InvitationRefused, type InvitationsService } from '../invitations/index.ts';
import { ApiError, badRequest } from '../platform/errors.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../platform/failure.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import {
  issueSignInTicket,
  normalizeEmail,
  type PasswordReset,
  ResetRefused,
  type SignUp,
  SignUpRefused,
  ticketCookie,
} from '../tenancy/index.ts';
import type { SignIn } from './accounts.ts';
import { registerPageForms, sendPage } from './page-forms.ts';
import {
  checkEmailPage,
  confirmSignUpPage,
  forgotPasswordPage,
  type InvitationView,
  invitationGonePage,
  joinNeedsAccountPage,
  joinWithAccountPage,
  joinWithNewAccountPage,
  linkGonePage,
  newPasswordPage,
  resetByOperatorPage,
  resetSentPage,
  signUpClosedPage,
  signUpPage,
} from './pages/account.pages.ts';
import { errorPage } from './pages/error.page.ts';

export interface AccountPagesDeps {
  /** `{MNEMO_PUBLIC_URL}/oauth`: the pages' links are absolute under it. */
  readonly issuer: string;
  readonly publicUrl: string;
  readonly database: Database;
  readonly invitations: InvitationsService;
  readonly signUp: SignUp;
  readonly passwordReset: PasswordReset;
  readonly signIn: SignIn;
  /** `MNEMO_SIGNUP`: `closed` lets no one make an account, even by invitation. */
  readonly signupMode: 'closed' | 'invite' | 'open';
  /**
   * What the forms that create accounts or send email may be sent, per address they name and
   * per client address: guessing and flooding go no faster than sign-ins do.
   */
  readonly limits: { readonly perEmail: RateLimiter; readonly perClient: RateLimiter };
  readonly securityHeaders: Readonly<Record<string, string>>;
  readonly ticketCookie: { readonly path: string; readonly secure: boolean };
}

type Form = Record<string, string | undefined>;
type WithSecret = { Params: { secret: string }; Body: Form };

/** The status a link that opens nothing answers with: gone, or never known. */
const goneStatus = (state: string) => (state === 'unknown' ? 404 : 410);

/**
 * The pages people use outside a sign-in: joining an organization by invitation
 * (`/oauth/invitations/{secret}`), signing up (`/oauth/sign-up`, and the emailed confirmation
 * `/oauth/sign-up/{secret}`), and resetting a forgotten password (`/oauth/password-reset`, and
 * the emailed `/oauth/password-reset/{secret}`). Each ends, when it made or changed an account,
 * signed in: a sign-in ticket (sign-in-tickets.ts) in this browser, then the studio, which signs
 * in by it at once. Forms are accepted only from these pages' own origin (a page elsewhere
 * cannot make a browser join or sign up).
 */
export function registerAccountPages(parent: FastifyInstance, deps: AccountPagesDeps): void {
  const { issuer, invitations, signUp, passwordReset } = deps;
  const studioUrl = `${deps.publicUrl}/studio/`;
  const origin = new URL(deps.publicUrl).origin;

  parent.register(async (app) => {
    registerPageForms(app, { securityHeaders: deps.securityHeaders, refuse: badRequest });
    app.addHook('preHandler', async (request) => {
      if (request.method === 'POST') sameOrigin(request);
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
      if (error instanceof ApiError && error.status < 500) {
        reply.headers(error.headers);
        return sendPage(
          reply,
          error.status,
          errorPage({ error: error.code, description: error.message }),
        );
      }
      request.log.error({ err: error }, 'account page failed');
      return sendPage(
        reply,
        500,
        errorPage({ error: 'server_error', description: 'That could not be done. Try again.' }),
      );
    });

    /**
     * A form posted from another site is refused. The pages' policy is `no-referrer` (their
     * URLs carry secrets), under which a browser sends `Origin: null` even for their own forms:
     * there, `Sec-Fetch-Site` (set by the browser, never by a page) says where the form was;
     * without it, a null origin cannot be told from another site's.
     */
    function sameOrigin(request: FastifyRequest): void {
      const from = request.headers.origin;
      const site = request.headers['sec-fetch-site'];
      if (
        (from !== undefined && from !== 'null' && from !== origin) ||
        (from === 'null' && site === undefined) ||
        (site !== undefined && site !== 'same-origin' && site !== 'none')
      ) {
        throw new ApiError(403, 'forbidden', 'This form can only be sent from its own page.');
      }
    }

    /**
     * Counts one use of a form naming `email`: refused (429, the wait said) past either limit.
     * Counted before anything is checked: a wrong guess costs as much as a right one.
     */
    async function spend(request: FastifyRequest, email: string): Promise<void> {
      const [perEmail, perClient] = await Promise.all([
        deps.limits.perEmail.hit(`account-form ${normalizeEmail(email.trim())}`),
        deps.limits.perClient.hit(`account-form ${request.ip}`),
      ]);
      const refused = [perEmail, perClient].filter((decision) => !decision.allowed);
      if (refused.length === 0) return;
      const wait = Math.max(...refused.map((decision) => decision.resetSeconds));
      throw new ApiError(429, 'too_many_requests', `Too many tries. Try again in ${wait} s.`, {
        headers: { 'retry-after': String(wait) },
      });
    }

    /** Signs the browser in with a ticket for `userId` and sends it on (the studio by default). */
    async function signedIn(reply: FastifyReply, userId: string, to: string) {
      const ticket = await deps.database.write((trx) => issueSignInTicket(trx, userId));
      reply.header('set-cookie', ticketCookie(ticket, deps.ticketCookie));
      return reply.redirect(to, 303);
    }

    const studioIn = (orgId: string) => `${studioUrl}memories?org=${encodeURIComponent(orgId)}`;

    // Invitations

    const invitationUrl = (secret: string) => `${issuer}/invitations/${encodeURIComponent(secret)}`;

    async function invitationPage(
      reply: FastifyReply,
      secret: string,
      shown: { status?: number; error?: string; name?: string } = {},
    ) {
      const found = await invitations.lookup(secret);
      if (found.state !== 'open') {
        return sendPage(
          reply,
          goneStatus(found.state),
          invitationGonePage(found.state, {
            ...(found.state === 'unknown' ? {} : { orgName: found.invitation.org_name }),
            studioUrl,
          }),
        );
      }
      const { invitation } = found;
      const view: InvitationView = {
        orgName: invitation.org_name,
        inviter: invitation.inviter_name ?? invitation.inviter_email ?? 'Someone',
        email: invitation.email,
      };
      const status = shown.status ?? 200;
      const error = shown.error === undefined ? {} : { error: shown.error };
      if (found.hasAccount) {
        const forgotUrl = `${issuer}/password-reset`;
        return sendPage(
          reply,
          status,
          joinWithAccountPage({ ...view, action: invitationUrl(secret), forgotUrl, ...error }),
        );
      }
      if (deps.signupMode === 'closed') return sendPage(reply, status, joinNeedsAccountPage(view));
      return sendPage(
        reply,
        status,
        joinWithNewAccountPage({
          ...view,
          action: invitationUrl(secret),
          ...error,
          ...(shown.name === undefined ? {} : { name: shown.name }),
        }),
      );
    }

    app.get<WithSecret>(
      '/oauth/invitations/:secret',
      { schema: { hide: true } },
      (request, reply) => invitationPage(reply, request.params.secret),
    );

    app.post<WithSecret>(
      '/oauth/invitations/:secret',
      { schema: { hide: true } },
      async (request, reply) => {
        const { secret } = request.params;
        const form = request.body ?? {};
        const found = await invitations.lookup(secret);
        if (found.state !== 'open') return invitationPage(reply, secret);
        const { email } = found.invitation;
        try {
          if (found.hasAccount) {
            const outcome = await deps.signIn(email, form.password ?? '', request.ip);
            if (!outcome.ok) {
              if (outcome.reason === 'throttled') {
                const wait = outcome.retryAfterSeconds ?? 60;
                reply.header('retry-after', String(wait));
                return invitationPage(reply, secret, {
                  status: 429,
                  error: `Too many failed sign-ins. Try again in ${wait} s.`,
                });
              }
              const refusal =
                outcome.reason === 'wrong-credentials'
                  ? 'Wrong password.'
                  : `This account is ${outcome.reason}.`;
              return invitationPage(reply, secret, {
                status: outcome.reason === 'wrong-credentials' ? 401 : 403,
                error: refusal,
              });
            }
            const joined = await invitations.acceptAsAccount(secret, outcome.userId);
            return signedIn(reply, joined.userId, studioIn(joined.orgId));
          }
          if (deps.signupMode === 'closed') return invitationPage(reply, secret);
          await spend(request, email);
          const joined = await invitations.acceptWithNewAccount(secret, {
            name: form.name ?? '',
            password: form.password ?? '',
            confirmation: form.confirmation ?? '',
          });
          return signedIn(reply, joined.userId, studioIn(joined.orgId));
        } catch (error) {
          if (error instanceof ApiError && error.status === 429) {
            reply.headers(error.headers);
            return invitationPage(reply, secret, {
              status: 429,
              error: error.message,
              name: form.name ?? '',
            });
          }
          if (!(error instanceof InvitationRefused)) throw error;
          if (error.reason === 'gone' || error.reason === 'account-exists')
            return invitationPage(
              reply,
              secret,
              error.reason === 'gone' ? {} : { status: 409, error: error.message },
            );
          return invitationPage(reply, secret, {
            status: error.reason === 'no-account' ? 403 : 400,
            error: error.message,
            name: form.name ?? '',
          });
        }
      },
    );

    // Sign-up

    /** A sign-up started from a sign-in page goes back to it, signed in; else to the studio. */
    const afterSignUp = (interaction: string | undefined) =>
      interaction !== undefined && /^[A-Za-z0-9_-]{1,128}$/.test(interaction)
        ? `${issuer}/interaction/${interaction}`
        : studioUrl;

    const signUpAction = (interaction: string | undefined) =>
      `${issuer}/sign-up${interaction === undefined ? '' : `?interaction=${encodeURIComponent(interaction)}`}`;

    app.get<{ Querystring: { interaction?: string } }>(
      '/oauth/sign-up',
      { schema: { hide: true } },
      (request, reply) => {
        if (!signUp.open) {
          return sendPage(
            reply,
            403,
            signUpClosedPage({ byInvitation: deps.signupMode === 'invite', studioUrl }),
          );
        }
        return sendPage(
          reply,
          200,
          signUpPage({ action: signUpAction(request.query.interaction), signInUrl: studioUrl }),
        );
      },
    );

    app.post<{ Querystring: { interaction?: string }; Body: Form }>(
      '/oauth/sign-up',
      { schema: { hide: true } },
      async (request, reply) => {
        if (!signUp.open) {
          return sendPage(
            reply,
            403,
            signUpClosedPage({ byInvitation: deps.signupMode === 'invite', studioUrl }),
          );
        }
        const form = request.body ?? {};
        const values = {
          name: form.name ?? '',
          email: form.email ?? '',
          organization: form.organization ?? '',
        };
        const { interaction } = request.query;
        try {
          await spend(request, values.email);
          const outcome = await signUp.start({
            ...values,
            password: form.password ?? '',
            confirmation: form.confirmation ?? '',
          });
          if (outcome.outcome === 'check-email')
            return sendPage(reply, 200, checkEmailPage({ email: outcome.email }));
          return signedIn(reply, outcome.userId, afterSignUp(interaction));
        } catch (error) {
          const status =
            error instanceof SignUpRefused
              ? 400
              : error instanceof ApiError && error.status === 429
                ? 429
                : 0;
          if (status === 0) throw error;
          return sendPage(
            reply,
            status,
            signUpPage({
              ...values,
              action: signUpAction(interaction),
              signInUrl: studioUrl,
              error: (error as Error).message,
            }),
          );
        }
      },
    );

    app.get<WithSecret>(
      '/oauth/sign-up/:secret',
      { schema: { hide: true } },
      async (request, reply) => {
        const { state, email } = await signUp.peek(request.params.secret);
        if (state !== 'open') {
          return sendPage(
            reply,
            goneStatus(state),
            linkGonePage('sign-up', state, { retryUrl: `${issuer}/sign-up` }),
          );
        }
        return sendPage(
          reply,
          200,
          confirmSignUpPage({
            email,
            action: `${issuer}/sign-up/${encodeURIComponent(request.params.secret)}`,
          }),
        );
      },
    );

    app.post<WithSecret>(
      '/oauth/sign-up/:secret',
      { schema: { hide: true } },
      async (request, reply) => {
        try {
          const made = await signUp.confirm(request.params.secret);
          if (!made) {
            const { state } = await signUp.peek(request.params.secret);
            const shown = state === 'open' ? 'used' : state;
            return sendPage(
              reply,
              goneStatus(shown),
              linkGonePage('sign-up', shown, { retryUrl: `${issuer}/sign-up` }),
            );
          }
          return signedIn(reply, made.userId, studioIn(made.orgId));
        } catch (error) {
          if (!(error instanceof SignUpRefused)) throw error;
          return sendPage(
            reply,
            409,
            errorPage({ error: 'account_exists', description: error.message }),
          );
        }
      },
    );

    // Password reset

    app.get('/oauth/password-reset', { schema: { hide: true } }, (_request, reply) =>
      sendPage(
        reply,
        200,
        passwordReset.enabled
          ? forgotPasswordPage({ action: `${issuer}/password-reset`, signInUrl: studioUrl })
          : resetByOperatorPage({ signInUrl: studioUrl }),
      ),
    );

    app.post<{ Body: Form }>(
      '/oauth/password-reset',
      { schema: { hide: true } },
      async (request, reply) => {
        if (!passwordReset.enabled)
          return sendPage(reply, 200, resetByOperatorPage({ signInUrl: studioUrl }));
        const email = (request.body?.email ?? '').trim();
        const action = `${issuer}/password-reset`;
        if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
          return sendPage(
            reply,
            400,
            forgotPasswordPage({
              action,
              signInUrl: studioUrl,
              email,
              error: 'Enter the email of your account.',
            }),
          );
        }
        try {
          await spend(request, email);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          reply.headers(error.headers);
          return sendPage(
            reply,
            429,
            forgotPasswordPage({ action, signInUrl: studioUrl, email, error: error.message }),
          );
        }
        passwordReset.request(email);
        return sendPage(reply, 200, resetSentPage({ email, signInUrl: studioUrl }));
      },
    );

    const resetUrl = (secret: string) => `${issuer}/password-reset/${encodeURIComponent(secret)}`;

    app.get<WithSecret>(
      '/oauth/password-reset/:secret',
      { schema: { hide: true } },
      async (request, reply) => {
        const { state, email } = await passwordReset.peek(request.params.secret);
        if (state !== 'open') {
          return sendPage(
            reply,
            goneStatus(state),
            linkGonePage('password-reset', state, { retryUrl: `${issuer}/password-reset` }),
          );
        }
        return sendPage(
          reply,
          200,
          newPasswordPage({ action: resetUrl(request.params.secret), email }),
        );
      },
    );

    app.post<WithSecret>(
      '/oauth/password-reset/:secret',
      { schema: { hide: true } },
      async (request, reply) => {
        const { secret } = request.params;
        const form = request.body ?? {};
        try {
          const userId = await passwordReset.complete(secret, {
            password: form.password ?? '',
            confirmation: form.confirmation ?? '',
          });
          if (userId) return signedIn(reply, userId, studioUrl);
          const { state } = await passwordReset.peek(secret);
          const shown = state === 'open' ? 'used' : state;
          return sendPage(
            reply,
            goneStatus(shown),
            linkGonePage('password-reset', shown, { retryUrl: `${issuer}/password-reset` }),
          );
        } catch (error) {
          if (!(error instanceof ResetRefused)) throw error;
          const { email } = await passwordReset.peek(secret);
          return sendPage(
            reply,
            400,
            newPasswordPage({ action: resetUrl(secret), email, error: error.message }),
          );
        }
      },
    );
  });
}
