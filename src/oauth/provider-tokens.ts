import { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import {
  builtInIssuer,
  extendKeyLease,
  MCP_SCOPE_NAMES,
  mcpResource,
  PLATFORM_SCOPE_NAMES,
  RATE_LIMIT_CLAIM,
} from '../credentials/index.ts';
import type { Database } from '../db/database.ts';
import { listUserOrganizations } from '../tenancy/index.ts';
import { findActiveAccount } from './accounts.ts';
import type { MnemoClientMetadata } from './client-metadata.ts';
import { findConnectionOfGrant } from './connections.repository.ts';

type Features = NonNullable<Configuration['features']>;

export interface TokenRulesOptions {
  readonly database: Database;
  readonly publicUrl: string;
  /** Lifetime of access and ID tokens, seconds. */
  readonly accessTokenTtlSeconds: number;
  /** The key tokens are signed with: its lease is kept ahead of every token. */
  readonly signingKid: string;
}

/**
 * A signer raises its key's lease this far past the token it signs, so it writes once per
 * stretch rather than once per token; a retired key outlives its last token by at most this.
 */
const maxLeaseSlackMs = 5 * 60 * 1000;

/**
 * What the provider's tokens are: for which resource (the platform API or the MCP server) and
 * with which scopes, the claims beside them (the organizations, an MCP connection's own, an
 * app's rate), and who their subject is (a person, or a client's service user).
 */
export function tokenRules(options: TokenRulesOptions): {
  readonly resourceIndicators: NonNullable<Features['resourceIndicators']>;
  readonly extraTokenClaims: NonNullable<Configuration['extraTokenClaims']>;
  readonly formats: NonNullable<Configuration['formats']>;
} {
  const { database, publicUrl, accessTokenTtlSeconds } = options;
  const { db } = database;
  const { audience } = builtInIssuer(publicUrl);
  const mcp = mcpResource(publicUrl);
  const leases = createLeaseWriter(database, options.signingKid, {
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

  return {
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
  };
}

/** The signed-in user of an access token; client-credentials tokens have none. */
const accountOf = (token: object): string | undefined =>
  'accountId' in token && typeof token.accountId === 'string' ? token.accountId : undefined;

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
