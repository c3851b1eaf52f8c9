import { timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { hashApiKey, parseApiKey } from './api-key-secret.ts';
import { createApiKeyLookup } from './keys.repository.ts';
import type { LastUsedRecorder } from './last-used.ts';

/** OpenAI's error body, which the chat interface imitates (DESIGN.md §3, `/v1` errors). */
export interface OpenAiErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: 'invalid_request_error';
    readonly param: null;
    readonly code: 'invalid_api_key';
  };
}

export type ApiKeyAuthentication =
  | {
      readonly ok: true;
      readonly orgId: string;
      readonly userId: string;
      readonly keyId: string;
      /** The project the key is bound to, or null. */
      readonly projectId: string | null;
    }
  | { readonly ok: false; readonly status: 401; readonly body: OpenAiErrorBody };

/**
 * Turns `Authorization: Bearer <API key>` into who the call acts as, or OpenAI's 401.
 *
 * @example
 * const result = await authenticateApiKey(request.headers.authorization);
 * if (!result.ok) return reply.code(result.status).send(result.body);
 * // result.orgId, result.userId, result.keyId, result.projectId
 */
export type ApiKeyAuthenticator = (
  authorization: string | undefined,
) => Promise<ApiKeyAuthentication>;

export interface ApiKeyAuthenticatorDeps {
  readonly database: Pick<Database, 'db' | 'reader'>;
  readonly lastUsed: LastUsedRecorder;
  readonly now?: () => number;
}

const refuse = (message: string): ApiKeyAuthentication => ({
  ok: false,
  status: 401,
  body: { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
});

export const API_KEY_MESSAGES = {
  missing:
    "You didn't provide an API key. Send it in the Authorization header as a bearer token (Authorization: Bearer mnemo_sk_…).",
  malformed:
    'Incorrect API key format: an API key is mnemo_sk_ followed by 49 letters and digits, sent as Authorization: Bearer mnemo_sk_…',
  unknown: 'Incorrect API key provided.',
  revoked: 'This API key has been revoked.',
  expired: 'This API key has expired.',
  inactive: "This API key's user is no longer an active member of its organization.",
} as const;

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Checks, in order: a bearer token is there; it is a well-formed key with a valid checksum (no
 * store read for anything else); a key with its hash exists (a unique index, then a constant-time
 * comparison of the hashes); it is not revoked, not expired; its user is active and still a
 * member of its organization. Nothing about a key is cached: a revocation or an expiry holds on
 * the next call, on every process. A use is noted for `last_used_at`, written in batches.
 */
export function createApiKeyAuthenticator(deps: ApiKeyAuthenticatorDeps): ApiKeyAuthenticator {
  const lookup = createApiKeyLookup(deps.database);
  const now = deps.now ?? Date.now;

  return async function authenticateApiKey(authorization) {
    if (authorization === undefined || authorization.trim() === '') {
      return refuse(API_KEY_MESSAGES.missing);
    }
    const token = BEARER.exec(authorization)?.[1];
    const parsed = token === undefined ? undefined : parseApiKey(token);
    if (!parsed) return refuse(API_KEY_MESSAGES.malformed);

    const hash = hashApiKey(parsed.secret);
    const key = await lookup(hash);
    if (!key || !sameHash(key.secret_hash, hash)) return refuse(API_KEY_MESSAGES.unknown);
    const at = now();
    if (key.revoked_at !== null) return refuse(API_KEY_MESSAGES.revoked);
    if (key.expires_at !== null && key.expires_at <= at) return refuse(API_KEY_MESSAGES.expired);
    if (key.status !== 'active' || key.role === null) return refuse(API_KEY_MESSAGES.inactive);

    deps.lastUsed.record(key.id, at);
    return {
      ok: true,
      orgId: key.org_id,
      userId: key.user_id,
      keyId: key.id,
      projectId: key.project_id,
    };
  };
}

/** The index found the row by equality; the answer is confirmed in constant time. */
function sameHash(stored: string, presented: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
