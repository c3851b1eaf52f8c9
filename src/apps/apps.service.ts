import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/tables.ts';
import type { IdentityErasure } from '../erasure/index.ts';
import {
  createClientId,
  createClientSecret,
  hashClientSecret,
  insertClient,
} from '../oauth/index.ts';
import { blankName } from '../platform/errors.ts';
import { isoTime } from '../platform/iso-time.ts';
import type { Caller } from '../tenancy/index.ts';
import {
  insertIdentity,
  requireManager,
  updateUserName,
  upsertMembership,
} from '../tenancy/index.ts';
import { appNotFound, noAppChanges, rateLimitAboveMax } from './apps.errors.ts';
import { type AppRow, findApp, listApps, updateAppClient } from './apps.repository.ts';
import type { App, AppCreateBody, AppPatchBody } from './apps.schemas.ts';

export interface AppsServiceDeps {
  readonly database: Database;
  readonly erasure: IdentityErasure;
  /** Requests a minute every credential may make (0: off), and the most an app may be given. */
  readonly rateLimits: { readonly defaultPerMinute: number; readonly maxPerMinute: number };
  readonly now?: () => number;
}

export function presentApp(row: AppRow): App {
  return {
    id: row.id,
    name: row.name,
    userId: row.service_user_id,
    role: row.role === 'admin' ? 'admin' : 'member',
    rateLimitPerMinute: row.rate_limit_per_minute,
    createdAt: isoTime(row.created_at),
  };
}

/**
 * Apps: credentials for an organization's backends, made by its owners and admins. An app is an
 * OAuth confidential client with the client_credentials grant whose tokens speak for a service
 * identity of its own, a member of the organization with the role chosen for it (never owner).
 * Its secret is shown once. Revoking it erases that identity (erasure/identity-erasure.ts):
 * its tokens are refused at their next request, on every process.
 */
export function createAppsService(deps: AppsServiceDeps) {
  const { database, rateLimits } = deps;
  const now = deps.now ?? Date.now;

  function checkName(raw: string): string {
    const name = raw.trim();
    if (name === '') throw blankName();
    return name;
  }

  function checkRateLimit(limit: number | null | undefined): void {
    if (limit != null && limit > rateLimits.maxPerMinute) {
      throw rateLimitAboveMax(rateLimits.maxPerMinute);
    }
  }

  async function existing(trx: Kysely<Tables>, caller: Caller, appId: string) {
    const row = await findApp(trx, caller.orgId, appId);
    if (!row) throw appNotFound();
    return row;
  }

  return {
    rateLimits,

    async list(caller: Caller): Promise<App[]> {
      requireManager(caller, 'list apps');
      return (await listApps(database.db, caller.orgId)).map(presentApp);
    },

    async get(caller: Caller, appId: string): Promise<App> {
      requireManager(caller, 'read apps');
      return presentApp(await existing(database.db, caller, appId));
    },

    async create(caller: Caller, body: AppCreateBody): Promise<{ app: App; secret: string }> {
      requireManager(caller, 'register apps');
      const name = checkName(body.name);
      checkRateLimit(body.rateLimitPerMinute);
      const role = body.role ?? 'member';
      const id = createClientId();
      const secret = createClientSecret();
      const userId = randomUUID();
      const at = now();
      await database.write(async (trx) => {
        await insertIdentity(trx, { id: userId, kind: 'app', name, at });
        await upsertMembership(trx, caller.orgId, userId, role);
        await insertClient(
          trx,
          {
            id,
            name,
            type: 'confidential',
            secretHash: hashClientSecret(secret),
            redirectUris: [],
            grants: ['client_credentials'],
            serviceUserId: userId,
            orgId: caller.orgId,
            rateLimitPerMinute: body.rateLimitPerMinute ?? null,
          },
          at,
        );
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: userId,
          action: 'app.create',
          details: { appId: id, name, role, rateLimitPerMinute: body.rateLimitPerMinute ?? null },
        });
      });
      const app = presentApp({
        id,
        name,
        service_user_id: userId,
        role,
        rate_limit_per_minute: body.rateLimitPerMinute ?? null,
        created_at: at,
      });
      return { app, secret };
    },

    async update(caller: Caller, appId: string, body: AppPatchBody): Promise<App> {
      requireManager(caller, 'change apps');
      if (Object.keys(body).length === 0) {
        throw noAppChanges();
      }
      const name = body.name === undefined ? undefined : checkName(body.name);
      checkRateLimit(body.rateLimitPerMinute);
      return database.write(async (trx) => {
        const before = await existing(trx, caller, appId);
        const after: AppRow = {
          ...before,
          ...(name === undefined ? {} : { name }),
          ...(body.role === undefined ? {} : { role: body.role }),
          ...(body.rateLimitPerMinute === undefined
            ? {}
            : { rate_limit_per_minute: body.rateLimitPerMinute }),
        };
        const changed = Object.fromEntries(
          (['name', 'role', 'rate_limit_per_minute'] as const)
            .filter((field) => before[field] !== after[field])
            .map((field) => [field, { from: before[field], to: after[field] }]),
        );
        if (Object.keys(changed).length === 0) return presentApp(before);
        await updateAppClient(trx, appId, {
          name,
          rateLimitPerMinute: body.rateLimitPerMinute,
        });
        if (name !== undefined) await updateUserName(trx, before.service_user_id, name);
        if (after.role !== before.role) {
          await upsertMembership(trx, caller.orgId, before.service_user_id, after.role);
        }
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: before.service_user_id,
          action: 'app.update',
          details: { appId, ...changed },
        });
        return presentApp(after);
      });
    },

    /** A new secret, shown once; the old one stops working at once (its tokens live on). */
    async rotateSecret(caller: Caller, appId: string): Promise<{ app: App; secret: string }> {
      requireManager(caller, 'change apps');
      const secret = createClientSecret();
      const app = await database.write(async (trx) => {
        const row = await existing(trx, caller, appId);
        await updateAppClient(trx, appId, { secretHash: hashClientSecret(secret) });
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: row.service_user_id,
          action: 'app.secret',
          details: { appId },
        });
        return presentApp(row);
      });
      return { app, secret };
    },

    /**
     * Revokes the app: its client and its identity are erased with all the identity held (its
     * own memories, what it contributed to project pools, its keys and grants); what it wrote
     * for others is theirs and stays. 404 when there is no such app (any more).
     */
    async revoke(caller: Caller, appId: string): Promise<void> {
      requireManager(caller, 'revoke apps');
      const done = await deps.erasure.erase({
        orgId: caller.orgId,
        actorId: caller.userId,
        action: 'app.revoke',
        details: { appId },
        find: async (trx) => (await findApp(trx, caller.orgId, appId))?.service_user_id,
      });
      if (!done) throw appNotFound();
    },
  };
}

export type AppsService = ReturnType<typeof createAppsService>;
