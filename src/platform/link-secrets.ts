import { createHash, randomBytes } from 'node:crypto';

/**
 * A secret that a link carries (an invitation, a password reset, a sign-in ticket): `prefix`
 * and 32 random bytes in base64url, safe in a URL path. Only its hash is stored: whoever reads
 * the store cannot use a link.
 */
export function newLinkSecret(prefix: string): { readonly secret: string; readonly hash: string } {
  const secret = `${prefix}${randomBytes(32).toString('base64url')}`;
  return { secret, hash: hashLinkSecret(secret) };
}

/**
 * SHA-256 of a link's secret, base64url: what the store keeps and looks a link up by. A plain
 * hash is enough: 256 random bits leave nothing to guess, and an index lookup by the hash of
 * what was presented reveals nothing through its timing that guessing could use.
 */
export const hashLinkSecret = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('base64url');
