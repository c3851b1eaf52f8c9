import {
  type CryptoKey,
  createRemoteJWKSet,
  decodeJwt,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import type { Kysely } from 'kysely';
import type { OutsideIssuer } from '../config.ts';
import type { Tables } from '../db/tables.ts';
import { builtInIssuer } from '../oauth/platform-credential.ts';
import { loadPublicKeys, SIGNING_ALG } from '../oauth/signing-keys.ts';
import { unauthenticated } from './errors.ts';

/** Who a verified platform credential speaks for. */
export interface Credential {
  readonly issuer: string;
  /** The user id (`sub`); for an outside issuer it must be a provisioned user's id. */
  readonly userId: string;
}

export interface CredentialVerifierOptions {
  readonly db: Kysely<Tables>;
  readonly publicUrl: string;
  readonly outsideIssuer: OutsideIssuer | undefined;
  readonly clockToleranceSeconds?: number;
  readonly cacheSize?: number;
}

export type CredentialVerifier = (authorization: string | undefined) => Promise<Credential>;

interface TrustedIssuer {
  readonly issuer: string;
  readonly audience: string;
  readonly getKey: JWTVerifyGetKey | ((header: { kid?: string }) => Promise<CryptoKey>);
}

/**
 * Verifies `Authorization: Bearer <JWT>`: RS256 only, issuer, audience, expiry with a small
 * clock skew. Trusts the built-in issuer (keys from the store, reloaded when an unknown `kid`
 * appears, so a key rotated by the CLI is picked up without restart) and, if configured, one
 * outside issuer by its JWKS. Verified tokens are remembered until they expire: an RSA
 * verification costs more than the rest of a read.
 */
export function createCredentialVerifier(options: CredentialVerifierOptions): CredentialVerifier {
  const tolerance = options.clockToleranceSeconds ?? 30;
  const builtIn = builtInIssuer(options.publicUrl);
  const issuers = new Map<string, TrustedIssuer>();
  issuers.set(builtIn.issuer, { ...builtIn, getKey: createStoreKeyResolver(options.db) });
  const outside = options.outsideIssuer;
  if (outside) {
    issuers.set(outside.issuer, {
      issuer: outside.issuer,
      audience: outside.audience,
      getKey: createRemoteJWKSet(new URL(outside.jwksUrl)),
    });
  }
  const cache = createExpiringCache<Credential>(options.cacheSize ?? 10_000);

  return async function verify(authorization) {
    const token = bearerToken(authorization);
    const now = Date.now();
    const cached = cache.get(token, now - tolerance * 1000);
    if (cached) return cached;

    let claimedIssuer: string | undefined;
    try {
      claimedIssuer = decodeJwt(token).iss;
    } catch {
      throw unauthenticated('invalid credential');
    }
    const trusted = claimedIssuer === undefined ? undefined : issuers.get(claimedIssuer);
    if (!trusted) throw unauthenticated('invalid credential');
    try {
      const { payload } = await jwtVerify(token, trusted.getKey as JWTVerifyGetKey, {
        algorithms: [SIGNING_ALG],
        issuer: trusted.issuer,
        audience: trusted.audience,
        clockTolerance: tolerance,
        requiredClaims: ['sub', 'exp'],
      });
      const credential: Credential = { issuer: trusted.issuer, userId: payload.sub as string };
      cache.set(token, credential, (payload.exp as number) * 1000);
      return credential;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw unauthenticated('credential has expired');
      if (error instanceof joseErrors.JOSEError) throw unauthenticated('invalid credential');
      throw error;
    }
  };
}

function bearerToken(authorization: string | undefined): string {
  if (!authorization) throw unauthenticated('missing credential');
  const match = /^Bearer +([A-Za-z0-9\-_.~+/]+=*) *$/i.exec(authorization);
  if (!match?.[1]) throw unauthenticated('invalid credential');
  return match[1];
}

/** The least time between two loads of the store's keys: unknown `kid`s are free to send. */
const KEY_RELOAD_INTERVAL_MS = 1000;

/**
 * Resolves a `kid` against the store's public keys. An unknown `kid` (a key added by
 * `mnemo admin keys rotate`, or a forgery) waits for a load that starts after it arrived, so a
 * new key is found on its first use; loads run at most once a second, shared by every request
 * that waits for them.
 */
function createStoreKeyResolver(db: Kysely<Tables>) {
  let keys = new Map<string, CryptoKey>();
  let lastStart = Number.NEGATIVE_INFINITY;
  let appliedStart = Number.NEGATIVE_INFINITY;
  /** The next load while it has not started: every miss until then is served by it. */
  let next: Promise<void> | undefined;

  const loadAfterNow = (): Promise<void> => {
    next ??= (async () => {
      // Always yield first: `next` must be assigned before the load can clear it.
      const wait = Math.max(0, lastStart + KEY_RELOAD_INTERVAL_MS - Date.now());
      await new Promise((resolve) => setTimeout(resolve, wait));
      next = undefined;
      const startedAt = Date.now();
      lastStart = startedAt;
      const loaded = await loadPublicKeys(db);
      // A slow load must not overwrite what a later one found.
      if (startedAt >= appliedStart) {
        appliedStart = startedAt;
        keys = new Map(loaded.map((k) => [k.kid, k.publicKey]));
      }
    })();
    return next;
  };

  return async (header: { kid?: string }): Promise<CryptoKey> => {
    const kid = header.kid;
    if (kid === undefined) throw new joseErrors.JWKSNoMatchingKey();
    if (!keys.has(kid)) await loadAfterNow();
    const key = keys.get(kid);
    if (!key) throw new joseErrors.JWKSNoMatchingKey();
    return key;
  };
}

/** A bounded map whose entries lapse at their own expiry; the oldest entry goes first when full. */
function createExpiringCache<V>(capacity: number) {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key: string, now: number): V | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= now) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key: string, value: V, expiresAt: number): void {
      if (entries.size >= capacity) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(key, { value, expiresAt });
    },
  };
}
