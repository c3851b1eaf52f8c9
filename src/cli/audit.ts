import { listAudit, OPERATOR_ACTOR_ID, OPERATOR_NAME } from '../audit/index.ts';
import { organizationExists } from '../tenancy/index.ts';
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
    return onStore(async ({ database }) => {
      if (!(await organizationExists(database.db, orgId))) throw unknownOrganization(orgId);
      const entries = (await listAudit(database.db, orgId, limit)).map((row) => ({
        id: row.id,
        at: new Date(row.at).toISOString(),
        actorId: row.actor_id,
        targetId: row.target_id,
        action: row.action,
        memoryId: row.memory_id,
      }));
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

/** Users by id; the operator of the command line, who is none, by name. */
const named = (id: string) => (id === OPERATOR_ACTOR_ID ? OPERATOR_NAME : id);
