import { timingSafeEqual } from 'node:crypto';
import { hashApiKey, parseApiKey } from '../credentials/index.ts';
import type { Database } from '../db/database.ts';
import type { MemberRole, OrganizationsTable } from '../db/tables.ts';
import { bearerToken } from '../platform/bearer.ts';
import { createApiKeyLookup } from './keys.repository.ts';
import type { LastUsedRecorder } from './last-used.ts';
import type { MemoryMode } from './memory-modes.ts';

/** Who a call of the chat interface acts as: the API key's organization, user and key. */
export interface KeyHolder {
  readonly orgId: string;
  readonly userId: string;
  readonly keyId: string;
  /** The key's memory settings (docs/memory-chat.md). */
  readonly memory: { readonly mode: MemoryMode; readonly access: MemoryMode };
  /**
   * The user's standing in the key's organization, read with the key: what acting on their
   * memories needs (the memory API's Caller), at no further cost.
   */
  readonly member: {
    readonly role: MemberRole;
    readonly memoryEnabled: boolean | null;
    readonly userOverride: OrganizationsTable['user_override'];
  };
}

/**
 * Why a key was refused, for the interface to word in its own shape (the gateway: OpenAI's 401).
 * - `missing`: no `Authorization` header (or a blank one);
 * - `malformed`: not `Bearer <key>`, or not a well-formed key (prefix, length, checksum);
 * - `platform-credential`: a JWT, the platform APIs' credential, where a key belongs;
 * - `unknown`, `revoked`, `expired`: the key itself;
 * - `owner-suspended`, `owner-banned`: its user's account;
 * - `owner-not-member`: its user left the key's organization.
 */
export type ApiKeyRefusal =
  | 'missing'
  | 'malformed'
  | 'platform-credential'
  | 'unknown'
  | 'revoked'
  | 'expired'
  | 'owner-suspended'
  | 'owner-banned'
  | 'owner-not-member';

export type ApiKeyAuthentication =
  | { readonly ok: true; readonly holder: KeyHolder }
  | { readonly ok: false; readonly refusal: ApiKeyRefusal };

/**
 * Turns `Authorization: Bearer <API key>` into who the call acts as, or why not.
 *
 * @example
 * const result = await authenticateApiKey(request.headers.authorization);
 * if (!result.ok) throw refusedApiKey(result.refusal); // gateway/api-key-refusals.ts: OpenAI's 401
 * // result.holder: { orgId, userId, keyId }
 */
export type ApiKeyAuthenticator = (
  authorization: string | undefined,
) => Promise<ApiKeyAuthentication>;

export interface ApiKeyAuthenticatorDeps {
  readonly database: Pick<Database, 'db' | 'reader'>;
  readonly lastUsed: LastUsedRecorder;
  readonly now?: () => number;
}

const refuse = (refusal: ApiKeyRefusal): ApiKeyAuthentication => ({ ok: false, refusal });

/** A compact JWS (RFC 7515 §7.1) whose header is JSON: how a platform credential looks. */
const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

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
    const bearer = bearerToken(authorization);
    if (!bearer.ok) return refuse(bearer.problem);
    const parsed = parseApiKey(bearer.token);
    if (!parsed) return refuse(JWT_SHAPE.test(bearer.token) ? 'platform-credential' : 'malformed');

    const hash = hashApiKey(parsed.secret);
    const key = await lookup(hash);
    if (!key || !sameHash(key.secret_hash, hash)) return refuse('unknown');
    const at = now();
    if (key.revoked_at !== null) return refuse('revoked');
    if (key.expires_at !== null && key.expires_at <= at) return refuse('expired');
    if (key.status !== 'active') {
      return refuse(key.status === 'banned' ? 'owner-banned' : 'owner-suspended');
    }
    if (key.role === null) return refuse('owner-not-member');

    deps.lastUsed.record(key.id, at);
    return {
      ok: true,
      holder: {
        orgId: key.org_id,
        userId: key.user_id,
        keyId: key.id,
        memory: { mode: key.memory, access: key.memory_access },
        member: {
          role: key.role,
          memoryEnabled: key.memory_enabled === null ? null : Boolean(key.memory_enabled),
          userOverride: key.user_override,
        },
      },
    };
  };
}

/** The index found the row by equality; the answer is confirmed in constant time. */
function sameHash(stored: string, presented: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
