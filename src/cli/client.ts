import type { ClientGrant } from '../oauth/index.ts';
import { type Args, repeatable } from './args.ts';
import { type Command, onStore } from './command.ts';

const TYPES = ['public', 'confidential'] as const;

export const clientCreate: Command = {
  path: ['admin', 'client', 'create'],
  usage:
    'mnemo admin client create --name NAME --type public|confidential [--redirect-uri URI]... [--grant authorization_code|refresh_token|client_credentials|device_code]... [--user ID]',
  summary:
    'register an OAuth client; a confidential one gets a secret, shown once and stored only as a hash',
  options: ['name', 'type', repeatable('redirect-uri'), repeatable('grant'), 'user'],
  async prepare(args) {
    const oauth = await import('../oauth/index.ts');
    const name = args.required('name').trim();
    const type = args.requiredChoice('type', TYPES);
    const serviceUserId = args.uuid('user') ?? null;
    const { grants, implied } = grantsOf(args, serviceUserId !== null, oauth.CLIENT_GRANTS);
    const redirectUris = [...new Set(args.strings('redirect-uri'))];
    checkGrants(args, { type, grants, implied, redirectUris, serviceUserId });
    const problem = oauth.redirectUrisProblem(redirectUris);
    if (problem !== undefined) args.fail(`--redirect-uri ${problem}`);

    return onStore(async ({ database }) => {
      const { createAccountsService } = await import('../tenancy/index.ts');
      const accounts = createAccountsService(database);
      const clients = oauth.createClientsService({ database, accounts });
      const { id, secret } = await clients.register({
        name,
        type,
        redirectUris,
        grants,
        serviceUserId,
      });
      if (secret === undefined) {
        return { json: { id }, text: `created public client "${name}"\nclient id: ${id}` };
      }
      return {
        json: { id, secret },
        text: [
          `created confidential client "${name}"`,
          `client id:     ${id}`,
          `client secret: ${secret}`,
          'the secret is not shown again: only its hash is stored',
        ].join('\n'),
      };
    });
  },
};

/** The grants asked for, each once; without --grant, what the other options imply. */
function grantsOf(
  args: Args,
  serviceUser: boolean,
  known: readonly ClientGrant[],
): { grants: ClientGrant[]; implied?: string } {
  const given = [...new Set(args.choices('grant', known))];
  if (given.length > 0) return { grants: given };
  return serviceUser
    ? { grants: ['client_credentials'], implied: 'the default with --user' }
    : { grants: ['authorization_code', 'refresh_token'], implied: 'a default without --grant' };
}

function checkGrants(
  args: Args,
  client: {
    type: (typeof TYPES)[number];
    grants: readonly ClientGrant[];
    /** Why the grants are what they are when no --grant was given. */
    implied: string | undefined;
    redirectUris: readonly string[];
    serviceUserId: string | null;
  },
): void {
  const has = (grant: ClientGrant) => client.grants.includes(grant);
  const named = (grant: ClientGrant) =>
    client.implied === undefined ? `--grant ${grant}` : `--grant ${grant} (${client.implied})`;
  if (has('client_credentials')) {
    // RFC 6749 §4.4: "The client credentials grant type MUST only be used by confidential
    // clients." Its tokens act as a service user, so the client needs one.
    if (client.type !== 'confidential') {
      args.fail(`${named('client_credentials')} needs --type confidential`);
    }
    if (client.serviceUserId === null) {
      args.fail(`${named('client_credentials')} needs --user: the service user the client acts as`);
    }
  } else if (client.serviceUserId !== null) {
    args.fail(
      '--user binds a client_credentials client to a service user: add --grant client_credentials',
    );
  }
  if (has('authorization_code')) {
    if (client.redirectUris.length === 0) {
      args.fail(`${named('authorization_code')} needs at least one --redirect-uri`);
    }
  } else if (client.redirectUris.length > 0) {
    args.fail('--redirect-uri is only for clients with --grant authorization_code');
  }
  if (has('refresh_token') && !has('authorization_code') && !has('device_code')) {
    args.fail('--grant refresh_token needs --grant authorization_code or device_code');
  }
}
