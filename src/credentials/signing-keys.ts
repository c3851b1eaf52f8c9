import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
} from 'jose';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';

export const SIGNING_ALG = 'RS256';

/**
 * How long a key that no longer signs is kept in the store after the last token it signed
 * expired: published keys are pruned only past this, so a slow clock or cache never meets a
 * key that vanished under it.
 */
const PRUNE_AFTER_MS = 24 * 3600 * 1000;

/**
 * The key lifecycle: the newest key signs; every older key stays published (JWKS) and trusted
 * (the memory API) until `expires_at`, the latest expiry of any token it signed, which each
 * signer raises before it signs (`extendKeyLease`). So `mnemo admin keys rotate` never cuts off
 * a live token, and an old key stops being trusted as soon as its last token expired.
 */
export interface StoredKey {
  readonly kid: string;
  readonly publicJwk: JWK;
  /** The latest expiry (ms) of a token it signed; Infinity for the newest key, which signs. */
  readonly trustedUntil: number;
}

export interface SigningKey extends StoredKey {
  readonly privateKey: CryptoKey;
  readonly privateJwk: JWK;
}

/**
 * Adds a new RS256 key, the newest: it signs from now on, and older ones stay trusted until their
 * last token expired. Removes keys a day past that.
 */
export async function rotateSigningKey(db: Kysely<Tables>, now = Date.now()): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, {
    modulusLength: 2048,
    extractable: true,
  });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('signing_keys')
      .values({
        kid,
        private_jwk: JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG }),
        public_jwk: JSON.stringify({ ...publicJwk, kid, alg: SIGNING_ALG, use: 'sig' }),
        // Strictly after every existing key, so "newest" is never a tie.
        created_at: Math.max(now, (await newestCreatedAt(trx)) + 1),
      })
      .execute();
    await trx
      .deleteFrom('signing_keys')
      .where('kid', '!=', kid)
      .where('expires_at', '<', now - PRUNE_AFTER_MS)
      .execute();
  });
  return kid;
}

async function newestCreatedAt(db: Kysely<Tables>): Promise<number> {
  const row = await db
    .selectFrom('signing_keys')
    .select('created_at')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.created_at) : 0;
}

/** Generates the first key of an empty store. Two processes starting at once may both add one. */
export async function ensureSigningKey(db: Kysely<Tables>): Promise<void> {
  const any = await db.selectFrom('signing_keys').select('kid').limit(1).executeTakeFirst();
  if (!any) await rotateSigningKey(db);
}

/** The kid of the key that signs now: the newest. */
export async function currentSigningKid(db: Kysely<Tables>): Promise<string | undefined> {
  const row = await db
    .selectFrom('signing_keys')
    .select('kid')
    .orderBy('created_at', 'desc')
    .orderBy('kid')
    .limit(1)
    .executeTakeFirst();
  return row?.kid;
}

/**
 * The keys still trusted at `now` (the newest, and older ones whose tokens may be alive),
 * newest first: the first one signs. `toleranceMs` keeps a key for the clock skew its
 * verifiers allow past a token's expiry.
 */
export async function loadTrustedKeys(
  db: Kysely<Tables>,
  now: number,
  toleranceMs: number,
): Promise<StoredKey[]> {
  const rows = await db
    .selectFrom('signing_keys')
    .select(['kid', 'public_jwk', 'expires_at'])
    .orderBy('created_at', 'desc')
    .orderBy('kid')
    .execute();
  return rows
    .map((row, index) => ({
      kid: row.kid,
      publicJwk: JSON.parse(row.public_jwk) as JWK,
      trustedUntil: index === 0 ? Number.POSITIVE_INFINITY : Number(row.expires_at),
    }))
    .filter((key) => key.trustedUntil + toleranceMs > now);
}

/** The trusted keys with their private halves, newest first, for signing. */
export async function loadSigningKeys(
  db: Kysely<Tables>,
  now = Date.now(),
  toleranceMs = 0,
): Promise<SigningKey[]> {
  const trusted = await loadTrustedKeys(db, now, toleranceMs);
  if (trusted.length === 0) return [];
  const rows = await db
    .selectFrom('signing_keys')
    .select(['kid', 'private_jwk'])
    .where(
      'kid',
      'in',
      trusted.map((key) => key.kid),
    )
    .execute();
  const privateJwks = new Map(rows.map((row) => [row.kid, JSON.parse(row.private_jwk) as JWK]));
  return Promise.all(
    trusted.flatMap((key) => {
      const privateJwk = privateJwks.get(key.kid);
      if (!privateJwk) return [];
      return [
        (async () => ({
          ...key,
          privateJwk,
          privateKey: (await importJWK(privateJwk, SIGNING_ALG)) as CryptoKey,
        }))(),
      ];
    }),
  );
}

/** Imports a stored public JWK for verification. */
export async function importPublicKey(jwk: JWK): Promise<CryptoKey> {
  return (await importJWK(jwk, SIGNING_ALG)) as CryptoKey;
}

/**
 * Raises the key's `expires_at` to at least `untilMs`: called before a token expiring then is
 * signed, so the key stays published while the token lives. Only ever raises it, so signers on
 * several processes cannot lower each other's leases.
 */
export async function extendKeyLease(
  db: Kysely<Tables>,
  kid: string,
  untilMs: number,
): Promise<void> {
  await db
    .updateTable('signing_keys')
    .set({ expires_at: untilMs })
    .where('kid', '=', kid)
    .where('expires_at', '<', untilMs)
    .execute();
}
