import {
  type CryptoKey,
  createRemoteJWKSet,
  decodeJwt,
  type JWTPayload,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import type { Kysely } from 'kysely';
import type { OutsideIssuer } from '../config.ts';
import type { Tables } from '../db/tables.ts';
import { bearerToken } from '../platform/bearer.ts';
import { API_KEY_PREFIX } from './api-key-secret.ts';
import {
  invalidCredential,
  CREDENTIAL_MESSAGES as M,
  missingCredential,
} from './credential-refusals.ts';
import { builtInIssuer, RATE_LIMIT_CLAIM } from './platform-credential.ts';
import { importPublicKey, loadTrustedKeys, SIGNING_ALG } from './signing-keys.ts';

/** Who a verified platform credential speaks for. */
export interface Credential {
  readonly issuer: string;
  /** The user id (`sub`); for an outside issuer it must be a provisioned user's id. */
  readonly userId: string;
  /**
   * The scopes the token grants (its `scope` claim, RFC 9068); undefined when it has no such
   * claim, which grants everything: the spec's credential (`mnemo token`, outside issuers that
   * send no scopes).
   */
  readonly scopes: ReadonlySet<string> | undefined;
  /** Every claim of the verified token, for what a resource reads beyond these (`org_id`). */
  readonly claims: Readonly<JWTPayload>;
  /**
   * Requests a minute the built-in issuer gave this subject above the default (an app's,
   * claim `mnemo_rate_limit`); undefined: the default. An outside issuer's claim means nothing.
   */
  readonly rateLimitPerMinute: number | undefined;
}

export interface CredentialVerifierOptions {
  readonly db: Kysely<Tables>;
  readonly publicUrl: string;
  /**
   * The audience required of the built-in issuer's tokens: by default the platform API's
   * (`{publicUrl}/api`); the MCP server's verifier names its own resource.
   */
  readonly audience?: string;
  readonly outsideIssuer: OutsideIssuer | undefined;
  readonly clockToleranceSeconds?: number;
  readonly cacheSize?: number;
}

/** The credential of `Authorization`, or a 401 `ApiError` with its `WWW-Authenticate` challenge. */
export type CredentialVerifier = (authorization: string | undefined) => Promise<Credential>;

interface TrustedIssuer {
  readonly issuer: string;
  readonly audience: string;
  readonly getKey: JWTVerifyGetKey | ((header: { kid?: string }) => Promise<CryptoKey>);
}

/**
 * Verifies `Authorization: Bearer <JWT>`: RS256 only, issuer, audience, expiry with a small
 * clock skew; a refusal is a 401 that says why (credential-refusals.ts). Trusts the built-in
 * issuer (keys from the store, reloaded when an unknown `kid` appears, so a key rotated by the
 * CLI is picked up without restart) and, if configured, one outside issuer by its JWKS.
 * Verified tokens are remembered, by the header that carried them, until they expire: an RSA
 * verification costs more than the rest of a read.
 */
export function createCredentialVerifier(options: CredentialVerifierOptions): CredentialVerifier {
  const tolerance = options.clockToleranceSeconds ?? 30;
  const builtIn = builtInIssuer(options.publicUrl);
  const issuers = new Map<string, TrustedIssuer>();
  issuers.set(builtIn.issuer, {
    issuer: builtIn.issuer,
    audience: options.audience ?? builtIn.audience,
    getKey: createStoreKeyResolver(options.db, tolerance * 1000),
  });
  const outside = options.outsideIssuer;
  if (outside) {
    issuers.set(outside.issuer, {
      issuer: outside.issuer,
      audience: outside.audience,
      getKey: createRemoteJWKSet(new URL(outside.jwksUrl)),
    });
  }
  const cache = createExpiringCache<Credential>(options.cacheSize ?? 10_000);
  const trustedIssuers = [...issuers.keys()];

  return async function verify(authorization) {
    const now = Date.now();
    // Keyed by the header as sent: a credential seen before costs no parsing at all. (No
    // header is never kept: it is refused before anything is.)
    const header = authorization ?? '';
    const cached = cache.get(header, now - tolerance * 1000);
    if (cached) return cached;
    const token = platformToken(authorization, builtIn.issuer);

    let claimedIssuer: string | undefined;
    try {
      claimedIssuer = decodeJwt(token).iss;
    } catch {
      throw invalidCredential(M.notJwt);
    }
    if (claimedIssuer === undefined) throw invalidCredential(M.claimMissing('iss'));
    const trusted = issuers.get(claimedIssuer);
    if (!trusted) throw invalidCredential(M.untrustedIssuer(trustedIssuers));
    try {
      const { payload } = await jwtVerify(token, trusted.getKey as JWTVerifyGetKey, {
        algorithms: [SIGNING_ALG],
        issuer: trusted.issuer,
        audience: trusted.audience,
        clockTolerance: tolerance,
        requiredClaims: ['sub', 'exp'],
      });
      // jose checks that `sub` is there, not what it is: a user id is a non-empty string.
      if (typeof payload.sub !== 'string' || payload.sub === '') {
        throw new joseErrors.JWTClaimValidationFailed('sub', payload, 'sub', 'invalid');
      }
      // jose judges `iat` only against a maximum age; one from the future is a token that is
      // not valid yet, as with `nbf`.
      if (typeof payload.iat === 'number' && payload.iat > now / 1000 + tolerance) {
        throw invalidCredential(M.notYetValid('iat'));
      }
      const granted = payload[RATE_LIMIT_CLAIM];
      const credential: Credential = {
        issuer: trusted.issuer,
        userId: payload.sub,
        scopes: parseScopes(payload.scope),
        claims: payload,
        rateLimitPerMinute:
          trusted.issuer === builtIn.issuer && Number.isSafeInteger(granted) && Number(granted) > 0
            ? Number(granted)
            : undefined,
      };
      cache.set(header, credential, (payload.exp as number) * 1000);
      return credential;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError)
        throw invalidCredential(whyRefused(error, trusted));
      throw error;
    }
  };
}

/**
 * What jose found, in words a client can act on. jose checks the signature before any claim, so
 * what a claim says is told only to the holder of a genuine token.
 */
function whyRefused(error: joseErrors.JOSEError, trusted: TrustedIssuer): string {
  if (error instanceof joseErrors.JWTExpired) return M.expired;
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return M.wrongAudience(trusted.audience);
    if ((error.claim === 'nbf' || error.claim === 'iat') && error.reason === 'check_failed') {
      return M.notYetValid(error.claim);
    }
    return error.reason === 'missing' ? M.claimMissing(error.claim) : M.claimInvalid(error.claim);
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return M.signature;
  if (error instanceof joseErrors.JWKSNoMatchingKey) return M.unknownKey;
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return M.algorithm;
  if (error instanceof joseErrors.JWSInvalid || error instanceof joseErrors.JWTInvalid) {
    return M.notJwt;
  }
  return M.other;
}

/** RFC 9068: `scope` is a space-separated string; any other type makes the token invalid. */
function parseScopes(claim: unknown): ReadonlySet<string> | undefined {
  if (claim === undefined) return undefined;
  if (typeof claim !== 'string')
    throw new joseErrors.JWTClaimValidationFailed('scope', {}, 'scope');
  return new Set(claim.split(' ').filter((scope) => scope !== ''));
}

/** The bearer token, unless it is missing, malformed or the chat interface's API key. */
function platformToken(authorization: string | undefined, issuer: string): string {
  const bearer = bearerToken(authorization);
  if (!bearer.ok) {
    throw bearer.problem === 'missing' ? missingCredential() : invalidCredential(M.notBearer);
  }
  // An API key is the chat interface's credential, never the platform's.
  if (bearer.token.startsWith(API_KEY_PREFIX)) throw invalidCredential(M.apiKey(issuer));
  return bearer.token;
}

/** The least time between two loads of the store's keys: unknown `kid`s are free to send. */
const KEY_RELOAD_INTERVAL_MS = 1000;
/** Known keys are read again this often, so a rotation is noticed without an unknown `kid`. */
const KEY_REFRESH_MS = 60_000;

interface TrustedKey {
  readonly key: CryptoKey;
  readonly trustedUntil: number;
}

/**
 * Resolves a `kid` against the store's trusted keys (signing-keys.ts: the newest, and older ones
 * until their last token expired). An unknown `kid` (a key added by `mnemo admin keys rotate`,
 * or a forgery) or a key past the end of its trust as last read waits for a load that starts
 * after it arrived; loads run at most once a second, shared by every request that waits for
 * them. A set read over a minute ago is read again in the background.
 */
function createStoreKeyResolver(db: Kysely<Tables>, toleranceMs: number) {
  let keys = new Map<string, TrustedKey>();
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
      const loaded = await loadTrustedKeys(db, startedAt, toleranceMs);
      const imported = await Promise.all(
        loaded.map(
          async (k) =>
            [
              k.kid,
              { key: await importPublicKey(k.publicJwk), trustedUntil: k.trustedUntil },
            ] as const,
        ),
      );
      // A slow load must not overwrite what a later one found.
      if (startedAt >= appliedStart) {
        appliedStart = startedAt;
        keys = new Map(imported);
      }
    })();
    return next;
  };

  const usable = (kid: string, now: number) => {
    const found = keys.get(kid);
    return found && found.trustedUntil + toleranceMs > now ? found.key : undefined;
  };

  return async (header: { kid?: string }): Promise<CryptoKey> => {
    const kid = header.kid;
    if (kid === undefined) throw new joseErrors.JWKSNoMatchingKey();
    const now = Date.now();
    if (!usable(kid, now)) await loadAfterNow();
    // A stale set is read again beside this request, not before it; a failed read is retried
    // on a later request, and this one is answered from what is known.
    else if (now - appliedStart > KEY_REFRESH_MS) loadAfterNow().catch(() => {});
    const key = usable(kid, Date.now());
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
