import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useNavigate } from 'react-router';
import { membersQuery, organizationQuery, projectsQuery } from '../api/queries.ts';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { type MemoryScope, scopeKey } from './memory-scope.ts';

export function useProjects() {
  const { api, org } = useStudio();
  return useQuery(projectsQuery(api, org.id));
}

export function useMembers(enabled = true) {
  const { api, org } = useStudio();
  return useQuery({ ...membersQuery(api, org.id), enabled });
}

/**
 * Whether the person may open other members' stores: any member by default, owners and admins
 * only when the organization says so (its `userOverride` setting).
 */
export function useMayActForOthers(): boolean {
  const { api, org } = useStudio();
  const settings = useQuery(organizationQuery(api, org.id));
  return isManager(org) || settings.data?.userOverride === 'members';
}

const pathOf = (key: string) => {
  if (key.startsWith('project:')) return `/memories/projects/${key.slice(8)}`;
  if (key.startsWith('member:')) return `/memories/members/${key.slice(7)}`;
  return '/memories';
};

/** At most `max` characters: a select is as wide as its longest option. */
const clipped = (text: string, max: number) =>
  [...text].length > max ? `${[...text].slice(0, max - 1).join('')}…` : text;

/** "End user: Jane Doe (customer-42)", or without a name "End user: customer-42". */
const endUserOption = (endUser: { externalId: string; name?: string }) =>
  `End user: ${
    endUser.name
      ? `${clipped(endUser.name, 32)} (${clipped(endUser.externalId, 24)})`
      : clipped(endUser.externalId, 48)
  }`;

/** Whose memories the page shows: the person's own, a project's pool, or another member's. */
export function StorePicker(props: { scope: MemoryScope }) {
  const { me } = useStudio();
  const id = useId();
  const navigate = useNavigate();
  const projects = useProjects();
  const mayActForOthers = useMayActForOthers();
  const members = useMembers(mayActForOthers || props.scope.kind === 'member');
  const others = (members.data ?? []).filter((m) => m.userId !== me.sub);
  const current = scopeKey(props.scope);
  const known =
    current === 'own' ||
    projects.data?.some((p) => `project:${p.id}` === current) ||
    others.some((m) => `member:${m.userId}` === current);

  return (
    <div className="store-picker">
      <label htmlFor={id}>Store</label>
      <select id={id} value={current} onChange={(event) => navigate(pathOf(event.target.value))}>
        <option value="own">My memories</option>
        {projects.data && projects.data.length > 0 ? (
          <optgroup label="Project pools">
            {projects.data.map((p) => (
              <option key={p.id} value={`project:${p.id}`}>
                {p.name}
              </option>
            ))}
          </optgroup>
        ) : null}
        {others.length > 0 && (mayActForOthers || props.scope.kind === 'member') ? (
          <optgroup label="Members">
            {others.map((m) => (
              <option key={m.userId} value={`member:${m.userId}`}>
                {m.name ?? m.email}
              </option>
            ))}
          </optgroup>
        ) : null}
        {known ? null : (
          <option value={current}>
            {props.scope.kind === 'project'
              ? 'Another project'
              : props.scope.kind === 'member' && props.scope.endUser
                ? endUserOption(props.scope.endUser)
                : 'Another member'}
          </option>
        )}
      </select>
    </div>
  );
}
