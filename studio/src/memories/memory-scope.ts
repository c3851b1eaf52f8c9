/**
 * Whose memories a page shows: the person's own, a project's pool, or another member's. An end
 * user is a member whom an app registered: the same store and override, named by the app's id.
 */
export type MemoryScope =
  | { readonly kind: 'own' }
  | { readonly kind: 'project'; readonly projectId: string }
  | {
      readonly kind: 'member';
      readonly userId: string;
      readonly endUser?: { readonly externalId: string; readonly name?: string };
    };

/** The list's query parameters for the scope (spec: `project`, or the `user` override). */
export function listQuery(scope: MemoryScope): { project?: string; user?: string } {
  if (scope.kind === 'project') return { project: scope.projectId };
  if (scope.kind === 'member') return { user: scope.userId };
  return {};
}

/** What a PATCH or DELETE by id adds: the override for a member's store, nothing otherwise. */
export function itemQuery(scope: MemoryScope): { user?: string } {
  return scope.kind === 'member' ? { user: scope.userId } : {};
}

/** What a POST adds to its body to reach the scope's store. */
export function addFields(scope: MemoryScope): { project?: string; user?: string } {
  return listQuery(scope);
}

export const scopeKey = (scope: MemoryScope) =>
  scope.kind === 'own'
    ? 'own'
    : scope.kind === 'project'
      ? `project:${scope.projectId}`
      : `member:${scope.userId}`;
