import { type Command, onStore, unknownOrganization } from './command.ts';

const DEFAULT_LIMIT = 100;

export const auditList: Command = {
  path: ['admin', 'audit', 'list'],
  usage: 'mnemo admin audit list --org ID [--limit N]',
  summary:
    "the organization's audit log, newest first: management changes, and acts for other members (the user override)",
  options: ['org', 'limit'],
  prepare(args) {
    const orgId = args.requiredUuid('org');
    const limit = args.positiveInteger('limit') ?? DEFAULT_LIMIT;
    return onStore(async ({ config, database }) => {
      const [audit, { createOrganizationsService }] = await Promise.all([
        import('../audit/index.ts'),
        import('../tenancy/index.ts'),
      ]);
      const organizations = createOrganizationsService({ database, environment: config.env });
      if (!(await organizations.exists(orgId))) throw unknownOrganization(orgId);
      // The command's own shape: every field always there (memoryId null when there is none).
      const entries = (await audit.createAuditLog(database).latest(orgId, limit)).map((entry) => ({
        id: entry.id,
        at: entry.at,
        actorId: entry.actorId,
        targetId: entry.targetId,
        action: entry.action,
        memoryId: entry.memoryId ?? null,
      }));
      // Users by id; the operator of the command line, who is none, by name.
      const named = (id: string) => (id === audit.OPERATOR_ACTOR_ID ? audit.OPERATOR_NAME : id);
      const lines = entries.map(
        (e) =>
          `${e.at}  ${named(e.actorId)} ${e.action} for ${named(e.targetId)}${e.memoryId ? ` (memory ${e.memoryId})` : ''}`,
      );
      return {
        json: { entries },
        text: lines.length === 0 ? `no audit entries for organization ${orgId}` : lines.join('\n'),
      };
    });
  },
};
