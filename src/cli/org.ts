import { randomUUID } from 'node:crypto';
import { type Command, namingOrganization, onStore, type StoreContext } from './command.ts';

const MEMORY = ['on', 'off'] as const;
const USER_OVERRIDE = ['members', 'admins'] as const;

const onOff = (value: 'on' | 'off' | undefined) =>
  value === undefined ? undefined : value === 'on';

export const orgCreate: Command = {
  path: ['admin', 'org', 'create'],
  usage:
    'mnemo admin org create --name NAME [--id UUID] [--memory on|off] [--user-override members|admins]',
  summary: 'create an organization',
  options: ['name', 'id', 'memory', 'user-override'],
  prepare(args) {
    const id = args.uuid('id') ?? randomUUID();
    const input = {
      name: args.required('name'),
      memoryEnabled: onOff(args.choice('memory', MEMORY)),
      userOverride: args.choice('user-override', USER_OVERRIDE),
    };
    return onStore(async ({ config, database }) => {
      const { organizations, operatorIn } = await asOperator(config, database);
      const org = await organizations.create(operatorIn(id), input).catch(namingOrganization(id));
      return { json: { id: org.id }, text: `created organization "${org.name}": ${org.id}` };
    });
  },
};

export const orgSet: Command = {
  path: ['admin', 'org', 'set'],
  usage: 'mnemo admin org set --org ID [--memory on|off] [--user-override members|admins]',
  summary: "change an organization's memory switch or who may act for other members",
  options: ['org', 'memory', 'user-override'],
  prepare(args) {
    const orgId = args.requiredUuid('org');
    const memory = args.choice('memory', MEMORY);
    const userOverride = args.choice('user-override', USER_OVERRIDE);
    if (memory === undefined && userOverride === undefined) {
      args.fail('nothing to change: give --memory, --user-override or both');
    }
    return onStore(async ({ config, database }) => {
      const changes = {
        ...(memory === undefined ? {} : { memoryEnabled: memory === 'on' }),
        ...(userOverride === undefined ? {} : { userOverride }),
      };
      const { organizations, operatorIn } = await asOperator(config, database);
      await organizations.update(operatorIn(orgId), changes).catch(namingOrganization(orgId));
      const said = [
        memory === undefined ? [] : [`memory ${memory}`],
        userOverride === undefined ? [] : [`user override ${userOverride}`],
      ].flat();
      return { json: { ok: true }, text: `organization ${orgId}: ${said.join(', ')}` };
    });
  },
};

/** The organizations service, and the operator as the caller in an organization. */
async function asOperator(config: StoreContext['config'], database: StoreContext['database']) {
  const { createOrganizationsService, operatorIn } = await import('../tenancy/index.ts');
  return {
    organizations: createOrganizationsService({ database, environment: config.env }),
    operatorIn,
  };
}
