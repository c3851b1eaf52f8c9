import {
  type Command,
  onStore,
  PreconditionFailed,
  type StoreContext,
  unknownOrganization,
  unknownUser,
} from './command.ts';

const ROLE = ['owner', 'admin', 'member'] as const;

export const memberAdd: Command = {
  path: ['admin', 'member', 'add'],
  usage: 'mnemo admin member add --org ID --user ID [--role owner|admin|member]',
  summary: "add a user to an organization, or change a member's role (default member)",
  options: ['org', 'user', 'role'],
  prepare(args) {
    const orgId = args.requiredUuid('org');
    const userId = args.requiredUuid('user');
    const role = args.choice('role', ROLE) ?? 'member';
    return onStore(async ({ config, database }) => {
      await mustExist(config, database, orgId, userId);
      const { createMembersService } = await import('../tenancy/index.ts');
      await createMembersService(database).byOperator.setRole(orgId, userId, role);
      return {
        json: { ok: true },
        text: `user ${userId} is a member of organization ${orgId}, role ${role}`,
      };
    });
  },
};

export const memberRemove: Command = {
  path: ['admin', 'member', 'remove'],
  usage: 'mnemo admin member remove --org ID --user ID',
  summary: "remove a member and the member's grants on the organization's projects",
  options: ['org', 'user'],
  prepare(args) {
    const orgId = args.requiredUuid('org');
    const userId = args.requiredUuid('user');
    return onStore(async ({ config, database }) => {
      await mustExist(config, database, orgId, userId);
      const { createMembersService } = await import('../tenancy/index.ts');
      const removed = await createMembersService(database).byOperator.remove(orgId, userId);
      if (!removed) {
        throw new PreconditionFailed(`user ${userId} is not a member of organization ${orgId}`);
      }
      const grants = removed.revokedGrants === 1 ? 'grant' : 'grants';
      return {
        json: { ok: true, revokedGrants: removed.revokedGrants },
        text: `removed user ${userId} from organization ${orgId} (and ${removed.revokedGrants} project ${grants})`,
      };
    });
  },
};

/** What the operator named: an unknown organization or user said as the command line says it. */
async function mustExist(
  config: StoreContext['config'],
  database: StoreContext['database'],
  orgId: string,
  userId: string,
): Promise<void> {
  const { createAccountsService, createOrganizationsService } = await import('../tenancy/index.ts');
  const organizations = createOrganizationsService({ database, environment: config.env });
  if (!(await organizations.exists(orgId))) throw unknownOrganization(orgId);
  if (!(await createAccountsService(database).exists(userId))) throw unknownUser(userId);
}
