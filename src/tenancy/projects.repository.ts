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

/** The organization a project belongs to (routes under /projects/{projectId}). */
export async function findProjectOrganization(
  db: Kysely<Tables>,
  projectId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('projects')
    .select('org_id')
    .where('id', '=', projectId)
    .executeTakeFirst();
  return row?.org_id;
}

/**
 * The project in this organization and a user's access to it; `lock` takes the project's row
 * for update (PostgreSQL), so that changes to one project's collaborators run one at a time.
 */
export async function findProjectWithAccess(
  db: Kysely<Tables>,
  orgId: string,
  projectId: string,
  userId: string,
  options: { lock?: boolean } = {},
) {
  const project = await db
    .selectFrom('projects')
    .selectAll()
    .where('id', '=', projectId)
    .where('org_id', '=', orgId)
    .$if(options.lock === true, (q) => q.forUpdate())
    .executeTakeFirst();
  if (!project) return undefined;
  return { project, access: await findProjectAccess(db, projectId, userId) };
}

export async function findProjectAccess(
  db: Kysely<Tables>,
  projectId: string,
  userId: string,
): Promise<ProjectAccess | null> {
  const row = await db
    .selectFrom('project_access')
    .select('access')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.access ?? null;
}

/** An organization's projects: all of them, or only those `userId` has access to. */
export async function listProjects(
  db: Kysely<Tables>,
  orgId: string,
  /** Each project with `accessOf`'s access (null when none); `onlyWithAccess` keeps only those. */
  options: { accessOf: string; onlyWithAccess: boolean },
) {
  return db
    .selectFrom('projects as p')
    .leftJoin('project_access as a', (join) =>
      join.onRef('a.project_id', '=', 'p.id').on('a.user_id', '=', options.accessOf),
    )
    .select(['p.id', 'p.name', 'p.created_at', 'a.access'])
    .where('p.org_id', '=', orgId)
    .$if(options.onlyWithAccess, (q) => q.where('a.access', 'is not', null))
    .execute();
}

export async function renameProject(
  db: Kysely<Tables>,
  projectId: string,
  name: string,
): Promise<void> {
  await db.updateTable('projects').set({ name }).where('id', '=', projectId).execute();
}

/** The users with access to a project, with their accounts, in the order they were granted. */
export async function listCollaborators(db: Kysely<Tables>, projectId: string) {
  return db
    .selectFrom('project_access as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select(['u.id', 'u.kind', 'u.email', 'u.name', 'a.access'])
    .where('a.project_id', '=', projectId)
    .orderBy('a.created_at')
    .orderBy('u.id')
    .execute();
}

export async function countProjectOwners(db: Kysely<Tables>, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('project_access')
    .select((eb) => eb.fn.countAll<number | string>().as('owners'))
    .where('project_id', '=', projectId)
    .where('access', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.owners);
}

/**
 * What stands in the way of deleting a project: active memories in its pool, and API keys
 * bound to it that still work. `lock` takes the pool's counter row for update (PostgreSQL), as
 * every pool write does, so no memory can be added between this check and the deletion.
 */
export async function projectDependents(
  db: Kysely<Tables>,
  project: { id: string; org_id: string },
  now: number,
  options: { lock?: boolean } = {},
): Promise<{ memories: number; liveKeys: number }> {
  const scope = await db
    .selectFrom('scopes')
    .select('id')
    .where('org_id', '=', project.org_id)
    .where('kind', '=', 'project')
    .where('owner_id', '=', project.id)
    .$if(options.lock === true, (q) => q.forUpdate())
    .executeTakeFirst();
  const memories = scope
    ? await db
        .selectFrom('memories')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('scope_id', '=', scope.id)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow()
    : { n: 0 };
  const keys = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', project.id)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return { memories: Number(memories.n), liveKeys: Number(keys.n) };
}

/**
 * Deletes a project with nothing left in it: its grants, its pool's tombstones and counter row,
 * and its binding on API keys that no longer work (revoked, or expired: those are marked revoked
 * too, so that unbinding can never widen what they reach). Check projectDependents first, in the
 * same transaction.
 */
export async function deleteEmptyProject(
  db: Kysely<Tables>,
  project: { id: string; org_id: string },
  now: number,
): Promise<void> {
  await db.deleteFrom('project_access').where('project_id', '=', project.id).execute();
  const scopes = db
    .selectFrom('scopes')
    .select('id')
    .where('org_id', '=', project.org_id)
    .where('kind', '=', 'project')
    .where('owner_id', '=', project.id);
  await db.deleteFrom('memories').where('scope_id', 'in', scopes).execute();
  await db
    .deleteFrom('scopes')
    .where('org_id', '=', project.org_id)
    .where('kind', '=', 'project')
    .where('owner_id', '=', project.id)
    .execute();
  await db
    .updateTable('api_keys')
    .set((eb) => ({
      project_id: null,
      revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)),
    }))
    .where('project_id', '=', project.id)
    .execute();
  await db.deleteFrom('projects').where('id', '=', project.id).execute();
}
