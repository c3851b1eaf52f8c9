import type { Collaborator } from '../api/queries.ts';

export type { Collaborator, Project } from '../api/queries.ts';
export type ProjectAccess = Collaborator['access'];

/** What each access allows, in the order it grows; the select and the legend read it. */
export const ACCESS: readonly { value: ProjectAccess; label: string; allows: string }[] = [
  { value: 'viewer', label: 'Viewer', allows: 'Reads the project’s memory pool.' },
  { value: 'editor', label: 'Editor', allows: 'Reads the pool and adds memories to it.' },
  {
    value: 'owner',
    label: 'Owner',
    allows:
      'Everything an editor does, and manages collaborators, renames and deletes the project.',
  },
];

export const accessLabel = (access: ProjectAccess) =>
  ACCESS.find((a) => a.value === access)?.label ?? access;
