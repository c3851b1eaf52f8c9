import { decodeJwt } from 'jose';
import { type Command, onStore, PreconditionFailed } from './command.ts';

const DEFAULT_TTL_SECONDS = 3600;
/** A year: a development credential that outlives that should be an API key instead. */
const MAX_TTL_SECONDS = 365 * 24 * 3600;

export const token: Command = {
  path: ['token'],
  usage: 'mnemo token --user ID [--ttl SECONDS]',
  summary: 'a platform credential from the built-in issuer (default 3600 s); prints the bare token',
  options: ['user', 'ttl'],
  prepare(args) {
    const userId = args.requiredUuid('user');
    const ttl = args.positiveInteger('ttl') ?? DEFAULT_TTL_SECONDS;
    if (ttl > MAX_TTL_SECONDS) args.fail(`--ttl must be at most ${MAX_TTL_SECONDS} (a year)`);
    return onStore(async ({ config, database }) => {
      const [{ ensureSigningKey, issuePlatformCredential }, { createAccountsService }] =
        await Promise.all([import('../credentials/index.ts'), import('../tenancy/index.ts')]);
      const status = await createAccountsService(database).status(userId);
      if (status !== 'active') {
        throw new PreconditionFailed(
          `user ${userId} is ${status}: only active users get a credential`,
        );
      }
      await ensureSigningKey(database.db);
      const credential = await issuePlatformCredential(database.db, config.publicUrl, userId, ttl);
      const expiresAt = new Date((decodeJwt(credential).exp ?? 0) * 1000).toISOString();
      return { json: { token: credential, expiresAt }, text: credential };
    });
  },
};
