import { recordAudit } from '../audit/index.ts';
import type { Environment } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { OrganizationRow } from '../db/tables.ts';
import type { Caller } from './authenticate.ts';
import { memoryEnabled } from './memory-rollout.ts';
import { cleanName } from './names.ts';
import { isOperator } from './operator.ts';
import { notFoundHere, nothingToChange, operatorOnly, organizationIdTaken } from './orgs.errors.ts';
import {
  findOrganization,
  insertOrganization,
  listUserOrganizations,
  organizationExists,
  type UserOverridePolicy,
  updateOrganization,
} from './orgs.repository.ts';
import type { MeResponse, Organization, OrganizationPatchBody } from './orgs.schemas.ts';
import { requireManager } from './roles.ts';
import { findUser } from './users.repository.ts';

/** What the operator gives for a new organization (its id is the operator caller's). */
export interface NewOrganizationInput {
  readonly name: string;
  readonly memoryEnabled?: boolean | undefined;
  readonly userOverride?: UserOverridePolicy | undefined;
}

/** What a change of an organization may set: the API's body, and the operator's memory switch. */
export type OrganizationChanges = OrganizationPatchBody & {
  readonly memoryEnabled?: boolean | undefined;
};

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
    exists(orgId: string): Promise<boolean> {
      return organizationExists(database.db, orgId);
    },

    /** The organizations an account belongs to, with its role in each, by name. */
    ofAccount(userId: string) {
      return listUserOrganizations(database.db, userId);
    },

    /** The account and its organizations (`GET /api/v1/me`). */
    async me(userId: string): Promise<MeResponse> {
      const user = await findUser(database.db, userId);
      // The account check just found it; gone since, it is as unknown as any other.
      if (!user) throw notFoundHere();
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
      if (!row) throw notFoundHere();
      return present(row);
    },

    /**
     * The operator creates an organization (`mnemo admin org create`), with its id when given
     * (409 when taken); audited in it as `org.create`. Organizations are otherwise made by
     * sign-up, with their first owner.
     */
    async create(caller: Caller, input: NewOrganizationInput): Promise<Organization> {
      if (!isOperator(caller)) throw operatorOnly('create organizations');
      const org = { ...input, id: caller.orgId, name: cleanName(input.name) };
      return database.write(async (trx) => {
        if (await organizationExists(trx, org.id)) throw organizationIdTaken(org.id);
        await insertOrganization(trx, org);
        await recordAudit(trx, {
          orgId: org.id,
          actorId: caller.userId,
          targetId: org.id,
          action: 'org.create',
          details: {
            name: org.name,
            ...(org.memoryEnabled === undefined ? {} : { memoryEnabled: org.memoryEnabled }),
            ...(org.userOverride === undefined ? {} : { userOverride: org.userOverride }),
          },
        });
        const row = await findOrganization(trx, org.id);
        if (!row) throw notFoundHere();
        return present(row);
      });
    },

    /**
     * Name and user-override policy, and for the operator alone the memory switch; one audit
     * row with what changed, when anything did.
     */
    async update(caller: Caller, body: OrganizationChanges): Promise<Organization> {
      requireManager(caller, "change the organization's settings");
      if (body.memoryEnabled !== undefined && !isOperator(caller)) {
        throw operatorOnly("switch the organization's memory");
      }
      if (
        body.name === undefined &&
        body.userOverride === undefined &&
        body.memoryEnabled === undefined
      ) {
        throw nothingToChange();
      }
      const name = body.name === undefined ? undefined : cleanName(body.name);
      return database.write(async (trx) => {
        const lock = database.dialect === 'postgres';
        const before = await findOrganization(trx, caller.orgId, { lock });
        if (!before) throw notFoundHere();
        const details: Record<string, unknown> = {};
        if (name !== undefined && name !== before.name) {
          details.name = { from: before.name, to: name };
        }
        if (body.userOverride !== undefined && body.userOverride !== before.user_override) {
          details.userOverride = { from: before.user_override, to: body.userOverride };
        }
        const memoryBefore = before.memory_enabled === null ? null : before.memory_enabled === 1;
        if (body.memoryEnabled !== undefined && body.memoryEnabled !== memoryBefore) {
          details.memoryEnabled = { from: memoryBefore, to: body.memoryEnabled };
        }
        if (Object.keys(details).length === 0) return present(before);
        await updateOrganization(trx, caller.orgId, {
          name,
          userOverride: body.userOverride,
          memoryEnabled: body.memoryEnabled,
        });
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
          memory_enabled:
            body.memoryEnabled === undefined ? before.memory_enabled : Number(body.memoryEnabled),
        });
      });
    },
  };
}
export type OrganizationsService = ReturnType<typeof createOrganizationsService>;
