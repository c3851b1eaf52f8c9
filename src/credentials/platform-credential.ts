import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import { extendKeyLease, loadSigningKeys, SIGNING_ALG } from './signing-keys.ts';

/** The built-in issuer and the audience (the platform API resource) of its credentials. */
export function builtInIssuer(publicUrl: string) {
  return { issuer: `${publicUrl}/oauth`, audience: `${publicUrl}/api` } as const;
}

/** The claim of an app's access token that carries the request rate its owners gave it. */
export const RATE_LIMIT_CLAIM = 'mnemo_rate_limit';

/**
 * The MCP server as a resource (RFC 8707): the audience of its tokens, and the `resource` of its
 * protected resource metadata (RFC 9728), which is the URL clients connect to.
 */
export const mcpResource = (publicUrl: string): string => `${publicUrl}/mcp`;

/**
 * Where the MCP server's protected resource metadata is (RFC 9728 §3.1: the well-known path
 * before the resource's path): what every challenge of `/mcp` names.
 */
export const mcpResourceMetadataUrl = (publicUrl: string): string =>
  `${publicUrl}/.well-known/oauth-protected-resource/mcp`;

/**
 * Signs a platform credential for a user with the newest key of the store, for operators and
 * development (`mnemo token`, the demo). It carries no `scope`: full access, as the spec's
 * credential has. Tokens from the authorization server carry the scopes their grant allows.
 *
 * @example
 * const token = await issuePlatformCredential(db, 'http://127.0.0.1:8080', userId, 3600);
 */
export async function issuePlatformCredential(
  db: Kysely<Tables>,
  publicUrl: string,
  userId: string,
  ttlSeconds: number,
): Promise<string> {
  const [key] = await loadSigningKeys(db);
  if (!key) throw new Error('no signing key in the store; start the server or run `mnemo migrate`');
  const { issuer, audience } = builtInIssuer(publicUrl);
  // One reading of the clock for both: read twice, a second could pass between them (the
  // lease is written in between) and the credential would live one second less than asked.
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresAt = issuedAt + ttlSeconds;
  await extendKeyLease(db, key.kid, expiresAt * 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(userId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setJti(randomUUID())
    .sign(key.privateKey);
}
