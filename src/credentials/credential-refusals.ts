import { bearerChallenge } from '../platform/bearer.ts';
import { ApiError } from '../platform/errors.ts';
import { API_KEY_PREFIX } from './api-key-secret.ts';

/**
 * Why a platform credential was refused, worded for the client: each 401 of `/api` says what to
 * fix, never repeating the token. Every message keeps to RFC 6750's characters for
 * `error_description` (printable ASCII without `"` and `\`), where it is sent as well.
 */
export const CREDENTIAL_MESSAGES = {
  missing: 'missing credential: send Authorization: Bearer <platform credential>',
  notBearer: 'malformed credential: send it as Authorization: Bearer <platform credential>',
  notJwt: 'malformed credential: not a signed JWT',
  expired: 'credential has expired',
  unknownAccount: 'credential does not belong to a known account',
  signature: 'invalid credential: the signature does not verify',
  unknownKey: 'invalid credential: signed with a key this server does not know',
  algorithm: 'invalid credential: only RS256 signatures are accepted',
  /** A failure jose reports that none of the above names. */
  other: 'invalid credential',
  untrustedIssuer: (trusted: readonly string[]) =>
    `invalid credential: not from an issuer this server trusts (${trusted.join(' or ')})`,
  wrongAudience: (audience: string) =>
    `invalid credential: not issued for this API; its aud must be ${audience}`,
  notYetValid: (claim: 'nbf' | 'iat') =>
    `invalid credential: not yet valid, its ${claim} is in the future (check the clocks)`,
  claimMissing: (claim: string) => `invalid credential: the ${claim} claim is missing`,
  claimInvalid: (claim: string) => `invalid credential: the ${claim} claim is malformed`,
  /** An API key sent where the platform credential is expected, and how to get the right one. */
  apiKey: (issuer: string) =>
    `an API key is not a platform credential: /api takes an OAuth access token from the authorization server at ${issuer} (mnemo login gets one); API keys (${API_KEY_PREFIX}...) are for the chat interface under /v1`,
} as const;

/**
 * 401 for a request that sent no credential: the challenge names the realm only (RFC 6750 §3.1:
 * a request lacking authentication gets no error code).
 */
export const missingCredential = () =>
  new ApiError(401, 'unauthenticated', CREDENTIAL_MESSAGES.missing, {
    headers: { 'www-authenticate': bearerChallenge() },
  });

/** 401 for a credential that was sent and refused: `invalid_token`, and why. */
export const invalidCredential = (message: string) =>
  new ApiError(401, 'unauthenticated', message, {
    headers: {
      'www-authenticate': bearerChallenge({ error: 'invalid_token', description: message }),
    },
  });
