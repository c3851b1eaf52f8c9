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

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly createdAt: number;
}

/** Adds a new RS256 key; it signs from now on, older keys keep verifying. */
export async function rotateSigningKey(db: Kysely<Tables>): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, {
    modulusLength: 2048,
    extractable: true,
  });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  await db
    .insertInto('signing_keys')
    .values({
      kid,
      private_jwk: JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG }),
      public_jwk: JSON.stringify({ ...publicJwk, kid, alg: SIGNING_ALG, use: 'sig' }),
      created_at: Date.now(),
    })
    .execute();
  return kid;
}

/** Generates the first key of an empty store. Two processes starting at once may both add one. */
export async function ensureSigningKey(db: Kysely<Tables>): Promise<void> {
  const any = await db.selectFrom('signing_keys').select('kid').limit(1).executeTakeFirst();
  if (!any) await rotateSigningKey(db);
}

/** All keys, newest first: the first one signs. */
export async function loadSigningKeys(db: Kysely<Tables>): Promise<SigningKey[]> {
  const rows = await db
    .selectFrom('signing_keys')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('kid')
    .execute();
  return Promise.all(
    rows.map(async (row) => {
      const publicJwk = JSON.parse(row.public_jwk) as JWK;
      return {
        kid: row.kid,
        privateKey: (await importJWK(JSON.parse(row.private_jwk), SIGNING_ALG)) as CryptoKey,
        publicKey: (await importJWK(publicJwk, SIGNING_ALG)) as CryptoKey,
        publicJwk,
        createdAt: row.created_at,
      };
    }),
  );
}

/** The public half of every key, for verification: no private key is imported. */
export async function loadPublicKeys(
  db: Kysely<Tables>,
): Promise<Array<{ kid: string; publicKey: CryptoKey }>> {
  const rows = await db.selectFrom('signing_keys').select(['kid', 'public_jwk']).execute();
  return Promise.all(
    rows.map(async (row) => ({
      kid: row.kid,
      publicKey: (await importJWK(JSON.parse(row.public_jwk) as JWK, SIGNING_ALG)) as CryptoKey,
    })),
  );
}
