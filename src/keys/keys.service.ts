import { recordAudit } from '../audit/index.ts';
import { generateApiKey } from '../credentials/index.ts';
import type { Database } from '../db/database.ts';
import { newRowId } from '../db/row-id.ts';
import { blankName } from '../platform/errors.ts';
import { parseUuid } from '../platform/uuid.ts';
import type { Caller } from '../tenancy/index.ts';
import {
  canRead,
  createProjectAccessReader,
  projectForbidden,
  projectNotFound,
} from '../tenancy/index.ts';
import {
  expiryInPast,
  keyNotFound,
  memoryBeyondAccess,
  nameTooLong,
  noKeyChanges,
} from './keys.errors.ts';
import {
  type ApiKeyRow,
  type ApiKeyView,
  findApiKey,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  setKeyMemory,
} from './keys.repository.ts';
import {
  type ApiKey,
  type CreateKeyBody,
  NAME_MAX_CHARS,
  type UpdateKeyBody,
} from './keys.schemas.ts';
import { covers, type MemoryMode } from './memory-modes.ts';

export interface KeysServiceDeps {
  readonly database: Database;
  readonly now?: () => number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The interface's shape of a key: `projectId` absent (never null) when there is none. */
export function toApiKey(row: ApiKeyView): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    ...(row.project_id === null ? {} : { projectId: row.project_id }),
    userId: row.user_id,
    memory: row.memory,
    memoryAccess: row.memory_access,
    createdAt: new Date(row.created_at).toISOString(),
    lastUsedAt: iso(row.last_used_at),
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
  };
}

/** Owners and admins manage every key of the organization; members their own. */
const seesAll = (caller: Caller) => caller.role === 'owner' || caller.role === 'admin';

export function createKeysService(deps: KeysServiceDeps) {
  const { database } = deps;
  const now = deps.now ?? Date.now;
  const findProjectAccess = createProjectAccessReader(database);

  function checkName(raw: string): string {
    const name = raw.trim();
    if (name === '') throw blankName();
    // Characters, not UTF-16 units: an emoji is one character.
    if ([...name].length > NAME_MAX_CHARS) throw nameTooLong();
    return name;
  }

  function checkExpiry(raw: string | undefined, at: number): number | null {
    if (raw === undefined) return null;
    // The schema checked the RFC 3339 form.
    const expiresAt = Date.parse(raw);
    if (!(expiresAt > at)) throw expiryInPast();
    return expiresAt;
  }

  /** A key's memory settings as they would be: what calls do may not exceed what they may. */
  function checkMemory(memory: MemoryMode, access: MemoryMode) {
    if (!covers(access, memory)) throw memoryBeyondAccess();
    return { memory, memory_access: access };
  }

  async function checkProject(caller: Caller, raw: string | undefined): Promise<string | null> {
    if (raw === undefined) return null;
    const projectId = raw.toLowerCase();
    const { exists, access } = await findProjectAccess(caller.orgId, projectId, caller.userId);
    if (!exists) throw projectNotFound();
    if (!canRead(access)) throw projectForbidden('read');
    return projectId;
  }

  return {
    /** A new key of the caller in the caller's organization, and its secret (shown once). */
    async create(caller: Caller, body: CreateKeyBody): Promise<{ key: ApiKey; secret: string }> {
      const createdAt = now();
      const name = checkName(body.name);
      const expiresAt = checkExpiry(body.expiresAt, createdAt);
      const settings = checkMemory(body.memory ?? 'off', body.memoryAccess ?? 'read-write');
      const projectId = await checkProject(caller, body.projectId);
      const { secret, prefix, hash } = generateApiKey();
      const row: ApiKeyRow = {
        id: newRowId(),
        org_id: caller.orgId,
        user_id: caller.userId,
        project_id: projectId,
        name,
        prefix,
        secret_hash: hash,
        created_at: createdAt,
        last_used_at: null,
        expires_at: expiresAt,
        revoked_at: null,
        ...settings,
      };
      await database.write(async (trx) => {
        await insertApiKey(trx, row);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: caller.userId,
          action: 'api_key.create',
          details: { keyId: row.id, name },
        });
      });
      // toApiKey picks the shown fields: the hash stays behind.
      return { key: toApiKey(row), secret };
    },

    /** The keys the caller may see, newest first. */
    async list(caller: Caller): Promise<ApiKey[]> {
      const owner = seesAll(caller) ? undefined : caller.userId;
      return (await listApiKeys(database.db, caller.orgId, owner)).map(toApiKey);
    },

    /**
     * Changes a key's memory settings, for the key's owner or the organization's owners and
     * admins; every later call with it sees them (the key check reads them with the key).
     */
    async update(caller: Caller, rawId: string, body: UpdateKeyBody): Promise<ApiKey> {
      if (body.memory === undefined && body.memoryAccess === undefined) throw noKeyChanges();
      const id = parseUuid(rawId);
      if (!id) throw keyNotFound();
      const updated = await database.write(async (trx) => {
        const key = await findApiKey(trx, caller.orgId, id);
        if (!key || (!seesAll(caller) && key.user_id !== caller.userId)) return undefined;
        const settings = checkMemory(
          body.memory ?? key.memory,
          body.memoryAccess ?? key.memory_access,
        );
        await setKeyMemory(trx, id, settings);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: key.user_id,
          action: 'api_key.update',
          details: {
            keyId: id,
            name: key.name,
            memory: settings.memory,
            memoryAccess: settings.memory_access,
          },
        });
        return { ...key, ...settings };
      });
      if (!updated) throw keyNotFound();
      return toApiKey(updated);
    },

    /** Revokes a key the caller may manage; a key already revoked is left as it is. */
    async revoke(caller: Caller, rawId: string): Promise<void> {
      const id = parseUuid(rawId);
      if (!id) throw keyNotFound();
      const found = await database.write(async (trx) => {
        const key = await findApiKey(trx, caller.orgId, id);
        if (!key || (!seesAll(caller) && key.user_id !== caller.userId)) return false;
        if (await revokeApiKey(trx, id, now())) {
          await recordAudit(trx, {
            orgId: caller.orgId,
            actorId: caller.userId,
            targetId: key.user_id,
            action: 'api_key.revoke',
            details: { keyId: id, name: key.name },
          });
        }
        return true;
      });
      if (!found) throw keyNotFound();
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
