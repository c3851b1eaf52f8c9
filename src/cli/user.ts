import { randomUUID } from 'node:crypto';
import { type Args, flag } from './args.ts';
import { type Command, onStore, PreconditionFailed, unknownUser } from './command.ts';

const STATUS = ['active', 'suspended', 'banned'] as const;

export const userCreate: Command = {
  path: ['admin', 'user', 'create'],
  usage: 'mnemo admin user create --email EMAIL [--id UUID] [--name NAME] [--password PW]',
  summary: 'create an active user; a password is stored only as a salted scrypt hash',
  options: ['email', 'id', 'name', 'password'],
  async prepare(args) {
    const { createAccountsService, normalizeEmail, passwordProblem } = await import(
      '../tenancy/index.ts'
    );
    const id = args.uuid('id') ?? randomUUID();
    const email = normalizeEmail(args.email('email'));
    const name = args.string('name')?.trim();
    const password = args.string('password');
    const problem = password === undefined ? undefined : passwordProblem(password, email);
    if (problem !== undefined) args.fail(`--password: ${problem}`);
    return onStore(async ({ database }) => {
      await createAccountsService(database).create({ id, email, name, password });
      return { json: { id }, text: `created user ${email}: ${id}` };
    });
  },
};

export const userSet: Command = {
  path: ['admin', 'user', 'set'],
  usage: 'mnemo admin user set --user ID [--status active|suspended|banned] [--password-stdin]',
  summary:
    "change a user's account status, or set a new password read from standard input (which signs the account out everywhere); the server applies either to the next request",
  options: ['user', 'status', flag('password-stdin')],
  async prepare(args) {
    const userId = args.requiredUuid('user');
    const status = args.choice('status', STATUS);
    const newPassword = args.flag('password-stdin');
    if (status === undefined && !newPassword) {
      args.fail('nothing to change: give --status, --password-stdin or both');
    }
    // Typed at a terminal, the password would show on the screen as it is typed.
    if (newPassword && process.stdin.isTTY) {
      args.fail('--password-stdin reads the password from a pipe or a file, not a terminal');
    }
    const password = newPassword ? await readPassword(args) : undefined;
    return onStore(async ({ database }) => {
      const { createAccountsService } = await import('../tenancy/index.ts');
      await createAccountsService(database).change(userId, { status, password });
      const changes = [
        status === undefined ? undefined : `is now ${status}`,
        password === undefined ? undefined : 'has a new password',
      ].filter((change) => change !== undefined);
      return { json: { ok: true }, text: `user ${userId} ${changes.join(' and ')}` };
    });
  },
};

/**
 * The password on standard input, so that it is in neither the command line (visible to every
 * user of the machine) nor the shell's history. One line end, as `echo` or a file adds it, is
 * not part of it.
 */
async function readPassword(args: Args): Promise<string> {
  let input = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) input += chunk;
  const password = input.replace(/\r?\n$/, '');
  if (password === '') args.fail('--password-stdin: standard input holds no password');
  return password;
}

export const userErase: Command = {
  path: ['admin', 'user', 'erase'],
  usage: 'mnemo admin user erase --user ID',
  summary:
    'erase a person everywhere: their memories in every organization (what they gave project pools is deleted), proposals, API keys, project access, memberships, sign-ins and the account; audited in each organization; refused while they alone own an organization other people belong to',
  options: ['user'],
  prepare(args) {
    const userId = args.requiredUuid('user');
    return onStore(async ({ database }) => {
      const [{ OPERATOR_ACTOR_ID }, { createUncachedErasure }] = await Promise.all([
        import('../audit/index.ts'),
        import('../erasure/index.ts'),
      ]);
      const erasure = createUncachedErasure(database);
      const done = await erasure.eraseAccount({
        userId,
        actorId: OPERATOR_ACTOR_ID,
        action: 'user.erase',
      });
      if (!done) throw unknownUser(userId);
      if ('refused' in done) {
        const named = done.refused.map((org) => `${org.name} (${org.id})`).join(', ');
        throw new PreconditionFailed(
          `${userId} is the only owner of ${named}, which other people belong to: make another member owner first (mnemo admin member add --org ID --user ID --role owner)`,
        );
      }
      const { summary, organizations } = done;
      const counts = [
        counted(summary.memories, 'memory', 'memories'),
        `${summary.poolMemories} in project pools`,
        counted(summary.proposals, 'proposal', 'proposals'),
        counted(summary.apiKeys, 'API key', 'API keys'),
        counted(summary.projectGrants, 'project access', 'project accesses'),
        counted(summary.invitations, 'invitation', 'invitations'),
      ].join(', ');
      return {
        json: { ok: true, organizations, ...summary },
        text: `erased user ${userId} from ${counted(organizations, 'organization', 'organizations')}: ${counts}`,
      };
    });
  },
};

const counted = (count: number, one: string, many: string) =>
  `${count} ${count === 1 ? one : many}`;
