import type { Database } from '../db/database.ts';
import type { ProjectAccess } from '../db/tables.ts';
import type { Caller } from '../tenancy/index.ts';
import {
  canEdit,
  canRead,
  createMemberRoleReader,
  createProjectAccessReader,
  projectForbidden,
  projectNotFound,
} from '../tenancy/index.ts';
import type { CursorScope } from './cursor.ts';
import { overrideForbidden, projectWithUser, unknownTargetUser } from './memory.errors.ts';

/** What a request needs of a project to reach its pool. */
type Need = 'read' | 'edit' | 'own';
const ALLOWS: Record<Need, (access: ProjectAccess | null) => boolean> = {
  read: canRead,
  edit: canEdit,
  own: (access) => access === 'owner',
};

/** Whose memories a request acts on; `overridden` when that is not the caller (audited). */
export interface Target {
  readonly userId: string;
  readonly overridden: boolean;
}

/**
 * The spec's rules for choosing a store: the caller's own by default; another member's with
 * `user` (subject to the organization's override policy); a project's pool with `project`.
 */
export function createMemoryTargets(database: Pick<Database, 'db' | 'reader'>) {
  const findMemberRole = createMemberRoleReader(database);
  const findProjectAccess = createProjectAccessReader(database);
  async function forMember(caller: Caller, user: string | undefined): Promise<Target> {
    const userId = user?.toLowerCase();
    if (userId === undefined || userId === caller.userId) {
      return { userId: caller.userId, overridden: false };
    }
    // The policy first: a member who may not override learns nothing about who is a member.
    if (caller.userOverride === 'admins' && caller.role === 'member') throw overrideForbidden();
    if ((await findMemberRole(caller.orgId, userId)) === undefined) throw unknownTargetUser();
    return { userId, overridden: true };
  }

  async function forProject(caller: Caller, project: string, need: Need) {
    const projectId = project.toLowerCase();
    const { exists, access } = await findProjectAccess(caller.orgId, projectId, caller.userId);
    if (!exists) throw projectNotFound();
    if (!ALLOWS[need](access)) throw projectForbidden(need);
    const scope: CursorScope = { orgId: caller.orgId, kind: 'project', ownerId: projectId };
    return { scope, target: { userId: caller.userId, overridden: false } };
  }

  async function forStore(
    caller: Caller,
    input: { user?: string | undefined; project?: string | undefined },
    need: Need,
  ): Promise<{ scope: CursorScope; target: Target }> {
    if (input.project !== undefined && input.user !== undefined) throw projectWithUser();
    if (input.project !== undefined) return forProject(caller, input.project, need);
    const target = await forMember(caller, input.user);
    return { scope: { orgId: caller.orgId, kind: 'user', ownerId: target.userId }, target };
  }

  return {
    forMember,
    forList: (caller: Caller, query: { user?: string | undefined; project?: string | undefined }) =>
      forStore(caller, query, 'read'),
    forAdd: (caller: Caller, body: { user?: string | undefined; project?: string | undefined }) =>
      forStore(caller, body, 'edit'),
    /** The whole store at once: a pool needs its owners. */
    forErase: (
      caller: Caller,
      query: { user?: string | undefined; project?: string | undefined },
    ) => forStore(caller, query, 'own'),
  };
}

export type MemoryTargets = ReturnType<typeof createMemoryTargets>;
