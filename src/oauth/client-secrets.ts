import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A new client id: `mnemo_client_` and 16 random bytes. Never shaped like a UUID, so a client
 * acting for itself can never be taken for a user, whose id is the `sub` of user tokens.
 */
export const createClientId = (): string => `mnemo_client_${randomBytes(16).toString('base64url')}`;

/** A new client secret: `mnemo_cs_` and 32 random bytes. Shown once; only its hash is stored. */
export const createClientSecret = (): string => `mnemo_cs_${randomBytes(32).toString('base64url')}`;

/**
 * SHA-256 of the secret, base64url: what the store keeps. A plain hash is enough (no salt, no
 * stretching): the secret carries 256 random bits, so there is nothing to guess from a hash.
 */
export const hashClientSecret = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('base64url');

/**
 * Whether `presented` is the secret whose hash is `storedHash`, compared in constant time: both
 * sides are hashes of the same length, so the time taken says nothing about how much matched.
 *
 * @example
 * const secret = createClientSecret();
 * verifyClientSecret(secret, hashClientSecret(secret)); // true
 */
export function verifyClientSecret(presented: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'utf8');
  const actual = Buffer.from(hashClientSecret(presented), 'utf8');
  // Only a malformed stored hash has another length; its length is no secret.
  if (actual.length !== expected.length) return false;
  return timingSafeEqual(actual, expected);
}
