import { randomUUID } from 'node:crypto';
import { hashPassword } from '../orgs/passwords.ts';
import {
  findUserIdByEmail,
  insertUser,
  normalizeEmail,
  updateUserStatus,
  userExists,
} from '../orgs/users.repository.ts';
import { type Command, onStore, PreconditionFailed, unknownUser } from './command.ts';

const STATUS = ['active', 'suspended', 'banned'] as const;

export const userCreate: Command = {
  path: ['admin', 'user', 'create'],
  usage: 'mnemo admin user create --email EMAIL [--id UUID] [--name NAME] [--password PW]',
  summary: 'create an active user; a password is stored only as a salted scrypt hash',
  options: ['email', 'id', 'name', 'password'],
  prepare(args) {
    const id = args.uuid('id') ?? randomUUID();
    const email = normalizeEmail(args.email('email'));
    const name = args.string('name')?.trim();
    const password = args.string('password');
    return onStore(async ({ database }) => {
      const passwordHash = password === undefined ? undefined : await hashPassword(password);
      await database.write(async (trx) => {
        if (await userExists(trx, id)) {
          throw new PreconditionFailed(`a user with id ${id} already exists`);
        }
        if ((await findUserIdByEmail(trx, email)) !== undefined) {
          throw new PreconditionFailed(`the email ${email} is already taken`);
        }
        await insertUser(trx, { id, email, name, passwordHash });
      });
      return { json: { id }, text: `created user ${email}: ${id}` };
    });
  },
};

export const userSet: Command = {
  path: ['admin', 'user', 'set'],
  usage: 'mnemo admin user set --user ID --status active|suspended|banned',
  summary: "change a user's account status; the server applies it to the next request",
  options: ['user', 'status'],
  prepare(args) {
    const userId = args.requiredUuid('user');
    const status = args.requiredChoice('status', STATUS);
    return onStore(async ({ database }) => {
      if (!(await updateUserStatus(database.db, userId, status))) throw unknownUser(userId);
      return { json: { ok: true }, text: `user ${userId} is now ${status}` };
    });
  },
};
