import { importJWK, type CryptoKey as JoseKey, type JWK, SignJWT } from 'jose';
import { builtInIssuer } from '../credentials/platform-credential.ts';
import type { TestApp } from './build-test-app.ts';

/** A credential of the built-in issuer for `userId` that carries only `scope`. */
export async function scopedToken(t: TestApp, userId: string, scope: string): Promise<string> {
  const row = await t.database.db
    .selectFrom('signing_keys')
    .selectAll()
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow();
  const key = (await importJWK(JSON.parse(row.private_jwk) as JWK, 'RS256')) as JoseKey;
  const { issuer, audience } = builtInIssuer(t.config.publicUrl);
  return new SignJWT({ scope })
    .setProtectedHeader({ alg: 'RS256', kid: row.kid, typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key);
}
