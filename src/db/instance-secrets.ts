import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from './tables.ts';

/**
 * A secret generated once per installation and kept in the store, so every process and every
 * restart uses the same one. The first process to insert it wins; the others read it back.
 */
export async function instanceSecret(db: Kysely<Tables>, name: string): Promise<Buffer> {
  await db
    .insertInto('instance_secrets')
    .values({ name, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('instance_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}
