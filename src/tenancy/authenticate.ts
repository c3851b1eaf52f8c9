import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CredentialVerifier } from '../credentials/index.ts';
import { CREDENTIAL_MESSAGES, invalidCredential } from '../credentials/index.ts';
import type { Database } from '../db/database.ts';
import type { MemberRole } from '../db/tables.ts';
import { ApiError } from '../platform/errors.ts';
import { type RateDecision, type RateLimiter, rateLimitHeaders } from '../platform/rate-limit.ts';
import { parseUuid } from '../platform/uuid.ts';
import {
  accountNotActive,
  notAMember,
  organizationHeaderInvalid,
  organizationHeaderMissing,
} from './admission.errors.ts';
import { notFoundHere } from './orgs.errors.ts';
import {
  type CallerContext,
  createCallerContextReader,
  type UserOverridePolicy,
} from './orgs.repository.ts';
import { findUserStatus } from './users.repository.ts';

/** The authenticated member a platform request acts as, in the organization it names. */
export interface Caller {
  readonly userId: string;
  readonly orgId: string;
  readonly role: MemberRole;
  /** The organization's memory switch: null when never set. */
  readonly memoryEnabled: boolean | null;
  readonly userOverride: UserOverridePolicy;
  /** What the credential allows (scopes.ts); undefined: everything. */
  readonly scopes: ReadonlySet<string> | undefined;
}

/** The authenticated, active account a request comes from, before any organization. */
export interface Account {
  readonly userId: string;
  /** What the credential allows (scopes.ts); undefined: everything. */
  readonly scopes: ReadonlySet<string> | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the `member` and `memberOf` checks. */
    caller: Caller;
    /** Set by every check of the platform. */
    account: Account;
  }
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface PlatformAuthentication {
  /** The member of the organization named by `X-Organization-Id` (the memory API, keys, usage). */
  readonly member: Hook;
  /**
   * The member of the organization `orgOf` finds for the request (from its path), checked in the
   * same order; `orgOf` answers undefined when there is no such organization: 404.
   */
  memberOf(orgOf: (request: FastifyRequest) => Promise<string | undefined>): Hook;
  /** An active account, whatever its organizations (`GET /api/v1/me`). */
  readonly account: Hook;
  /**
   * `member`'s judgement again, for a request admitted a while ago that is still being
   * answered (a stream): its credential (expired, revoked, an account erased), the account's
   * status and membership, as the store holds them now. Counts nothing against the rate limit.
   */
  readmit(request: FastifyRequest): Promise<Caller>;
  /**
   * `member`, with `read` in place of the caller's own statement: one round trip for the
   * caller and what the route reads first. Every check is made as `member` makes it, in the
   * same order; `keep` receives what was read once the caller is admitted, never for a
   * request refused. Where `read` answers undefined, `member` runs as it is.
   */
  memberReading<T>(
    read: ReadAlongCaller<T>,
    keep: (request: FastifyRequest, value: T) => void,
  ): Hook;
}

export interface PlatformAuthenticationDeps {
  readonly database: Database;
  readonly verify: CredentialVerifier;
  /** Requests per credential subject; absent when rate limiting is off. */
  readonly rateLimiter: RateLimiter | undefined;
  /** Failed authentications per client address; absent when off. */
  readonly failedAuthLimiter: RateLimiter | undefined;
  /**
   * The most requests a minute any credential may be given (`MNEMO_APP_RATE_LIMIT_MAX`): an
   * app's own limit above the default is held to it, as it is now, whatever its token says.
   */
  readonly rateLimitCeiling?: number | undefined;
}

/** A 429 for `policy`'s refusal, with its Retry-After and state. */
export const tooManyRequests = (policy: string, decision: RateDecision, why = '') =>
  new ApiError(
    429,
    'rate_limited',
    `rate limit exceeded: ${why}retry in ${decision.resetSeconds} s`,
    { headers: rateLimitHeaders(policy, decision) },
  );

/**
 * The platform's two budgets, shared by every door that authenticates (the API and `/mcp`), so
 * a subject has one budget whichever door it comes through.
 */
export interface RequestLimits {
  /**
   * Runs the credential check `check`. Only failures are limited, per client address: a
   * credential that verifies is never refused because others behind the same address (a
   * company's NAT) failed, and costs no count. A failure past the limit is 429 instead of 401,
   * and is not counted (the wait does not grow). A credential is checked whatever its address's
   * count: only checking tells a good one from a bad one, and what fails cheaply (no bearer
   * token, not a JWT, an untrusted issuer, a key with a bad checksum) costs little anyway.
   */
  authenticated<T>(request: FastifyRequest, check: () => Promise<T>): Promise<T>;
  /**
   * Counts a request of `subject` (issuer and user id: one budget per subject, however many
   * credentials it holds): 429 past the limit, else the current state on `reply`. `granted`:
   * the subject's own limit, when its credential carries one (an app's).
   */
  count(subject: string, reply: FastifyReply, granted?: number | undefined): Promise<void>;
}

export function createRequestLimits(
  deps: Pick<PlatformAuthenticationDeps, 'rateLimiter' | 'failedAuthLimiter' | 'rateLimitCeiling'>,
): RequestLimits {
  const { rateLimiter, failedAuthLimiter } = deps;
  const ceiling = deps.rateLimitCeiling ?? Number.POSITIVE_INFINITY;
  return {
    async authenticated(request, check) {
      try {
        return await check();
      } catch (error) {
        if (failedAuthLimiter && error instanceof ApiError && error.status === 401) {
          const decision = await failedAuthLimiter.hit(`failed-auth ${request.ip}`);
          if (!decision.allowed) {
            throw tooManyRequests(
              'failed-auth',
              decision,
              'too many failed authentications from this address; ',
            );
          }
        }
        throw error;
      }
    },
    async count(subject, reply, granted) {
      if (!rateLimiter) return;
      const limit = granted === undefined ? undefined : Math.min(granted, ceiling);
      const decision = await rateLimiter.hit(subject, limit);
      if (!decision.allowed) throw tooManyRequests('credential', decision);
      reply.headers(rateLimitHeaders('credential', decision));
    },
  };
}

/**
 * Account status and membership (403), the last checks before the request itself: the caller
 * `account` acts as in `orgId`, by the context the store holds (undefined: the account the
 * credential names is not known to the store, a credential refused: 401).
 */
export function admitCaller(
  account: Account,
  orgId: string,
  context: CallerContext | undefined,
): Caller {
  // No row (an app revoked, an end user erased), or the one their pool tombstones name: no account.
  if (!context || context.status === 'erased') {
    throw invalidCredential(CREDENTIAL_MESSAGES.unknownAccount);
  }
  if (context.status !== 'active') throw accountNotActive(context.status);
  if (context.role === null) throw notAMember();
  return {
    userId: account.userId,
    orgId,
    role: context.role,
    memoryEnabled: context.memoryEnabled,
    userOverride: context.userOverride,
    scopes: account.scopes,
  };
}

/** `admitCaller` on the context read from the store. */
export type Admission = (account: Account, orgId: string) => Promise<Caller>;

export function createAdmission(database: Database): Admission {
  const findCallerContext = createCallerContextReader(database);
  return async (account, orgId) =>
    admitCaller(account, orgId, await findCallerContext(account.userId, orgId));
}

/** The caller's context and what a route read in the same statement (`memberReading`). */
export interface ReadAlong<T> {
  readonly context: CallerContext | undefined;
  readonly value: T;
}

/**
 * Reads what a request needs in the caller's own statement (orgs.repository.ts,
 * `callerContextQuery`), or answers undefined when this request has nothing to read along.
 */
export type ReadAlongCaller<T> = (
  request: FastifyRequest,
  account: Account,
  orgId: string,
) => Promise<ReadAlong<T>> | undefined;

/**
 * The platform's checks, in the order of docs/design.md §3.3: credential (401) → rate (429) →
 * organization (400 for a bad `X-Organization-Id`) → account status and membership (403). They
 * run as onRequest hooks, before the body is read, so a request is judged on who sends it before
 * what it says.
 */
export function createPlatformAuthentication(
  deps: PlatformAuthenticationDeps,
): PlatformAuthentication {
  const { verify } = deps;
  const limits = createRequestLimits(deps);
  const admission = createAdmission(deps.database);

  /** Credential and rate: who the request comes from, counted. */
  async function identify(request: FastifyRequest, reply: FastifyReply) {
    const { issuer, userId, scopes, rateLimitPerMinute } = await limits.authenticated(request, () =>
      verify(request.headers.authorization),
    );
    await limits.count(`${issuer} ${userId}`, reply, rateLimitPerMinute);
    return { userId, scopes };
  }

  function headerOrganization(request: FastifyRequest): string {
    const header = request.headers['x-organization-id'];
    if (header === undefined || header === '') throw organizationHeaderMissing();
    const orgId = parseUuid(typeof header === 'string' ? header : undefined);
    if (!orgId) throw organizationHeaderInvalid();
    return orgId;
  }

  /** Status and membership in `orgId`: sets `request.caller`. */
  async function admit(request: FastifyRequest, account: Account, orgId: string) {
    const caller = await admission(account, orgId);
    request.account = account;
    request.caller = caller;
  }

  async function member(request: FastifyRequest, reply: FastifyReply) {
    const account = await identify(request, reply);
    await admit(request, account, headerOrganization(request));
  }

  return {
    member,
    memberReading(read, keep) {
      return async (request, reply) => {
        const account = await identify(request, reply);
        const orgId = headerOrganization(request);
        const along = read(request, account, orgId);
        if (!along) return admit(request, account, orgId);
        const { context, value } = await along;
        request.caller = admitCaller(account, orgId, context);
        request.account = account;
        keep(request, value);
      };
    },
    memberOf(orgOf) {
      return async (request, reply) => {
        const account = await identify(request, reply);
        const orgId = await orgOf(request);
        if (orgId === undefined) throw notFoundHere();
        await admit(request, account, orgId);
      };
    },
    async readmit(request) {
      const { userId, scopes } = await verify(request.headers.authorization);
      return admission({ userId, scopes }, request.caller.orgId);
    },
    async account(request, reply) {
      const account = await identify(request, reply);
      const status = await findUserStatus(deps.database.db, account.userId);
      if (status === undefined || status === 'erased') {
        throw invalidCredential(CREDENTIAL_MESSAGES.unknownAccount);
      }
      if (status !== 'active') throw accountNotActive(status);
      request.account = account;
    },
  };
}
