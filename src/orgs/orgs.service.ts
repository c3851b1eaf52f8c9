import { recordAudit } from '../audit/audit.repository.ts';
import type { Caller } from '../auth/authenticate.ts';
import type { Environment } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { OrganizationRow } from '../db/tables.ts';
import { badRequest, notFound } from '../platform/errors.ts';
import { memoryEnabled } from './memory-rollout.ts';
import { cleanName } from './names.ts';
import { findOrganization, listUserOrganizations, updateOrganization } from './orgs.repository.ts';
import type { MeResponse, Organization, OrganizationPatchBody } from './orgs.schemas.ts';
import { requireManager } from './roles.ts';
import { findUser } from './users.repository.ts';

export interface OrganizationsServiceDeps {
  readonly database: Database;
  readonly environment: Environment;
}

export function createOrganizationsService(deps: OrganizationsServiceDeps) {
  const { database, environment } = deps;

  function present(row: OrganizationRow): Organization {
    return {
      id: row.id,
      name: row.name,
      userOverride: row.user_override,
      memoryEnabled: memoryEnabled(
        environment,
        row.memory_enabled === null ? null : row.memory_enabled === 1,
      ),
      createdAt: new Date(row.created_at).toISOString(),
    };
  }

  return {
    /** The account and its organizations (`GET /api/v1/me`). */
    async me(userId: string): Promise<MeResponse> {
      const user = await findUser(database.db, userId);
      // The account check just found it; gone since, it is as unknown as any other.
      if (!user) throw notFound('not found');
      const organizations = await listUserOrganizations(database.db, userId);
      return {
        user: {
          id: user.id,
          ...(user.email === null ? {} : { email: user.email }),
          ...(user.name === null ? {} : { name: user.name }),
        },
        organizations: organizations.map(({ id, name, role }) => ({ id, name, role })),
      };
    },

    async get(caller: Caller): Promise<Organization> {
      const row = await findOrganization(database.db, caller.orgId);
      if (!row) throw notFound('not found');
      return present(row);
    },

    /** Name and user-override policy; one audit row with what changed, when anything did. */
    async update(caller: Caller, body: OrganizationPatchBody): Promise<Organization> {
      requireManager(caller, "change the organization's settings");
      if (body.name === undefined && body.userOverride === undefined) {
        throw badRequest('nothing to change: give name, userOverride or both');
      }
      const name = body.name === undefined ? undefined : cleanName(body.name);
      return database.write(async (trx) => {
        const lock = database.dialect === 'postgres';
        const before = await findOrganization(trx, caller.orgId, { lock });
        if (!before) throw notFound('not found');
        const details: Record<string, unknown> = {};
        if (name !== undefined && name !== before.name) {
          details.name = { from: before.name, to: name };
        }
        if (body.userOverride !== undefined && body.userOverride !== before.user_override) {
          details.userOverride = { from: before.user_override, to: body.userOverride };
        }
        if (Object.keys(details).length === 0) return present(before);
        await updateOrganization(trx, caller.orgId, { name, userOverride: body.userOverride });
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: caller.orgId,
          action: 'org.update',
          details,
        });
        return present({
          ...before,
          name: name ?? before.name,
          user_override: body.userOverride ?? before.user_override,
        });
      });
    },
  };
}
export type OrganizationsService = ReturnType<typeof createOrganizationsService>;
