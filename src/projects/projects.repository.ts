import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { prepareQuery } from '../db/prepared-query.ts';
import type { ProjectAccess, Tables } from '../db/tables.ts';

export async function insertProject(
  db: Kysely<Tables>,
  project: { id: string; orgId: string; name: string },
): Promise<void> {
  await db
    .insertInto('projects')
    .values({ id: project.id, org_id: project.orgId, name: project.name, created_at: Date.now() })
    .execute();
}

export async function findProject(db: Kysely<Tables>, id: string) {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Grants or changes a user's access to a project. */
export async function upsertProjectAccess(
  db: Kysely<Tables>,
  projectId: string,
  userId: string,
  access: ProjectAccess,
): Promise<void> {
  await db
    .insertInto('project_access')
    .values({ project_id: projectId, user_id: userId, access, created_at: Date.now() })
    .onConflict((oc) => oc.columns(['project_id', 'user_id']).doUpdateSet({ access }))
    .execute();
}

export async function deleteProjectAccess(
  db: Kysely<Tables>,
  projectId: string,
  userId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('project_access')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Removes a user's grants on every project of an organization; returns how many there were. */
export async function deleteOrganizationGrants(
  db: Kysely<Tables>,
  orgId: string,
  userId: string,
): Promise<number> {
  const result = await db
    .deleteFrom('project_access')
    .where('user_id', '=', userId)
    .where('project_id', 'in', (eb) =>
      eb.selectFrom('projects').select('id').where('org_id', '=', orgId),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Reads the project (if it is in this organization) and a user's access to it, in one query
 * compiled once: memory requests that name a project run it.
 */
export function createProjectAccessReader(database: Pick<Database, 'db' | 'reader'>) {
  const { db, reader } = database;
  const query = prepareQuery((p: { orgId: string; projectId: string; userId: string }) =>
    db
      .selectFrom('projects as p')
      .leftJoin('project_access as a', (join) =>
        join.onRef('a.project_id', '=', 'p.id').on('a.user_id', '=', p.userId),
      )
      .select('a.access')
      .where('p.id', '=', p.projectId)
      .where('p.org_id', '=', p.orgId),
  );
  return async (
    orgId: string,
    projectId: string,
    userId: string,
  ): Promise<{ exists: boolean; access: ProjectAccess | null }> => {
    const row = await query.first(reader, { orgId, projectId, userId });
    return row ? { exists: true, access: row.access } : { exists: false, access: null };
  };
}

export const canRead = (access: ProjectAccess | null) => access !== null;
export const canEdit = (access: ProjectAccess | null) => access === 'editor' || access === 'owner';
