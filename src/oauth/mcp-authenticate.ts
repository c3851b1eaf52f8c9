/**
 * Who a request to `/mcp` comes from, checked in the platform's order (docs/design.md §3.3):
 * credential (401) → rate (429) → account status and membership (403). MCP has no
 * `X-Organization-Id`: the credential itself names the organization the connection acts in.
 *
 * A credential is a bearer token of one of two kinds, told apart by its form:
 * - an API key (`mnemo_sk_…`, keys/api-key-auth.ts): its user, in its organization, with the
 *   memory scopes;
 * - an OAuth access token of the built-in authorization server for the MCP resource (its
 *   audience is `{public URL}/mcp`: a token for the API is refused here, as this one is there),
 *   whose connection (oauth/connections.repository.ts) names the organization the person chose
 *   when they allowed the client, and is looked up on every request: revoked, it is refused at
 *   once, on every process.
 *
 * A request counts against the same budget as the user's requests to the API: one per subject,
 * the built-in issuer and the user id, whichever door and credential it comes with.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  API_KEY_PREFIX,
  allows,
  builtInIssuer,
  CREDENTIAL_MESSAGES,
  createCredentialVerifier,
  MCP_SCOPE_NAMES,
  mcpResource,
  mcpResourceMetadataUrl,
  type PlatformScope,
} from '../credentials/index.ts';
import type { Database } from '../db/database.ts';
import type { ApiKeyAuthenticator, MemoryMode } from '../keys/index.ts';
import { type BearerError, bearerChallenge, bearerToken } from '../platform/bearer.ts';
import { ApiError } from '../platform/errors.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { parseUuid } from '../platform/uuid.ts';
import {
  type Account,
  accountNotActive,
  createAdmission,
  createRequestLimits,
  notAMember,
  type PlatformAuthenticationDeps,
} from '../tenancy/index.ts';
import { findLiveConnection } from './connections.repository.ts';

/** The scopes the MCP tools need: reading memories, and writing them. */
export const MCP_SCOPES = MCP_SCOPE_NAMES;

/**
 * What an API key may do here: its memory rights (docs/memory-chat.md) bound every use of the
 * key, so a key that may not read memories in chat calls reads none through the tools either.
 */
const keyScopes: Record<MemoryMode, readonly PlatformScope[]> = {
  off: [],
  read: ['memory:read'],
  'read-write': MCP_SCOPES,
};

/** Who a verified credential speaks for, and in which organization. */
export interface McpCredential {
  /** With the user id, whose budget the request counts against (as on the API). */
  readonly issuer: string;
  readonly userId: string;
  readonly orgId: string;
  /** What the credential allows (scopes.ts); undefined: everything. */
  readonly scopes: ReadonlySet<string> | undefined;
}

/** Why a credential was refused, worded for the client (RFC 6750's characters only). */
export const MCP_CREDENTIAL_MESSAGES = {
  missing: `missing credential: send Authorization: Bearer <access token for /mcp, or API key (${API_KEY_PREFIX}...)>`,
  notBearer: `malformed credential: send it as Authorization: Bearer <access token for /mcp, or API key (${API_KEY_PREFIX}...)>`,
  revokedConnection: 'invalid credential: the connection was revoked; authorize the client again',
  movedConnection:
    'invalid credential: the connection now acts in another organization; refresh the token',
  malformedKey: `malformed API key: an API key is ${API_KEY_PREFIX} followed by 49 letters and digits`,
  unknownKey: 'invalid API key',
  revokedKey: 'the API key has been revoked',
  expiredKey: 'the API key has expired',
} as const;

/**
 * The challenge of a refusal (RFC 6750 §3): the realm and where the server's protected resource
 * metadata is (RFC 9728 §5.1: how an MCP client finds the authorization server), the error and
 * its description when a credential was sent, and the scopes to ask for. Every challenge of
 * `/mcp` is made here.
 */
function challenge(publicUrl: string, refusal?: BearerError): Record<string, string> {
  return {
    'www-authenticate': bearerChallenge(refusal, {
      resourceMetadata: mcpResourceMetadataUrl(publicUrl),
      scope: MCP_SCOPES.join(' '),
    }),
  };
}

export const missingMcpCredential = (publicUrl: string) =>
  new ApiError(401, 'unauthenticated', MCP_CREDENTIAL_MESSAGES.missing, {
    headers: challenge(publicUrl),
  });

export const invalidMcpCredential = (publicUrl: string, message: string) =>
  new ApiError(401, 'unauthenticated', message, {
    headers: challenge(publicUrl, { error: 'invalid_token', description: message }),
  });

/**
 * 403 `insufficient_scope` (RFC 6750 §3.1) for a request that needs `scope`: the challenge
 * names that scope, the one the operation needs (MCP 2026-07-28, SEP-2350); a client asks for
 * it with those it holds when it authorizes again (MCP's step-up authorization).
 */
export function insufficientMcpScope(publicUrl: string, scope: PlatformScope): ApiError {
  const message = `the credential lacks the ${scope} scope`;
  return new ApiError(403, 'insufficient_scope', message, {
    headers: challenge(publicUrl, { error: 'insufficient_scope', description: message, scope }),
  });
}

export interface McpAuthenticationDeps {
  readonly database: Database;
  readonly publicUrl: string;
  /** How long past its `exp` an access token is still accepted (clock skew), seconds. */
  readonly clockToleranceSeconds: number;
  readonly authenticateApiKey: ApiKeyAuthenticator;
  /** The API's limiters, the same instances: a subject has one budget for both doors. */
  readonly rateLimiter: PlatformAuthenticationDeps['rateLimiter'];
  readonly failedAuthLimiter: RateLimiter | undefined;
}

/**
 * The onRequest hook of `/mcp`: sets `request.account` and `request.caller` (the memory API's
 * Caller), or refuses in the `{"error"}` shape with the challenge. Every request needs
 * `memory:read`; which also need `memory:write` is the route's to say (it reads the body).
 */
export function createMcpAuthentication(
  deps: McpAuthenticationDeps,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const limits = createRequestLimits(deps);
  const admission = createAdmission(deps.database);
  const { publicUrl } = deps;
  const { issuer } = builtInIssuer(publicUrl);
  const invalid = (message: string) => invalidMcpCredential(publicUrl, message);
  // The API's checks of a token, for this resource's audience and the built-in issuer only:
  // an outside issuer's tokens are for the API.
  const verifyAccessToken = createCredentialVerifier({
    db: deps.database.db,
    publicUrl,
    audience: mcpResource(publicUrl),
    outsideIssuer: undefined,
    clockToleranceSeconds: deps.clockToleranceSeconds,
  });

  /** An API key: its user in its organization, allowed the memory tools. */
  async function apiKey(authorization: string | undefined): Promise<McpCredential> {
    const result = await deps.authenticateApiKey(authorization);
    if (result.ok) {
      const { userId, orgId, memory } = result.holder;
      return { issuer, userId, orgId, scopes: new Set(keyScopes[memory.access]) };
    }
    switch (result.refusal) {
      case 'unknown':
        throw invalid(MCP_CREDENTIAL_MESSAGES.unknownKey);
      case 'revoked':
        throw invalid(MCP_CREDENTIAL_MESSAGES.revokedKey);
      case 'expired':
        throw invalid(MCP_CREDENTIAL_MESSAGES.expiredKey);
      // The key is good, its user is not: what admission says of any credential of that user.
      case 'owner-suspended':
        throw accountNotActive('suspended');
      case 'owner-banned':
        throw accountNotActive('banned');
      case 'owner-not-member':
        throw notAMember();
      default:
        throw invalid(MCP_CREDENTIAL_MESSAGES.malformedKey);
    }
  }

  /**
   * An OAuth access token issued for the MCP resource: verified as the API verifies its own
   * (signature, issuer, audience, expiry), then its connection, which must still be there for
   * this person and client (`connection_id`, `sub`, `client_id`) and act in the token's
   * organization (`org_id`).
   */
  async function accessToken(authorization: string | undefined): Promise<McpCredential> {
    const verified = await verifyAccessToken(authorization).catch((error: unknown) => {
      throw error instanceof ApiError && error.status === 401 ? invalid(error.message) : error;
    });
    const claim = (name: string, parse = (value: string): string | undefined => value) => {
      const value = verified.claims[name];
      if (value === undefined) throw invalid(CREDENTIAL_MESSAGES.claimMissing(name));
      const parsed = typeof value === 'string' && value !== '' ? parse(value) : undefined;
      if (parsed === undefined) throw invalid(CREDENTIAL_MESSAGES.claimInvalid(name));
      return parsed;
    };
    const orgId = claim('org_id', parseUuid);
    const connection = await findLiveConnection(deps.database.db, {
      id: claim('connection_id'),
      userId: verified.userId,
      clientId: claim('client_id'),
    });
    if (!connection) throw invalid(MCP_CREDENTIAL_MESSAGES.revokedConnection);
    if (connection.orgId !== orgId) throw invalid(MCP_CREDENTIAL_MESSAGES.movedConnection);
    return {
      issuer: verified.issuer,
      userId: verified.userId,
      orgId,
      scopes: verified.scopes,
    };
  }

  /** The bearer token's credential, by its form. */
  async function credential(request: FastifyRequest): Promise<McpCredential> {
    const { authorization } = request.headers;
    const bearer = bearerToken(authorization);
    if (!bearer.ok) {
      throw bearer.problem === 'missing'
        ? missingMcpCredential(publicUrl)
        : invalid(MCP_CREDENTIAL_MESSAGES.notBearer);
    }
    if (bearer.token.startsWith(API_KEY_PREFIX)) return apiKey(authorization);
    return accessToken(authorization);
  }

  return async function authenticateMcp(request, reply) {
    const found = await limits.authenticated(request, () => credential(request));
    await limits.count(`${found.issuer} ${found.userId}`, reply);
    const account: Account = { userId: found.userId, scopes: found.scopes };
    const caller = await admission(account, found.orgId);
    if (!allows(account, 'memory:read')) throw insufficientMcpScope(publicUrl, 'memory:read');
    request.account = account;
    request.caller = caller;
  };
}
