import { useQuery } from '@tanstack/react-query';
import { data, inOrg } from '../api/client.ts';
import { apiKeysQuery, membersQuery, projectsQuery } from '../api/queries.ts';
import { isManager, type Studio, useStudio } from '../app/studio-context.tsx';
import type { KeyMemory } from './key-memory.ts';

/** The keys the person may see, under the one cache key every page shares. */
export function useKeys() {
  const { api, org } = useStudio();
  return useQuery(apiKeysQuery(api, org.id));
}

/** Who each key belongs to: owners and admins see every member's keys. */
export function useMemberNames() {
  const { api, org } = useStudio();
  return useQuery({
    ...membersQuery(api, org.id),
    enabled: isManager(org),
    select: (members) => new Map(members.map((m) => [m.userId, m.name ?? m.email])),
  });
}

/** The projects a key may be bound to (those the person can read), and their names. */
export function useProjects() {
  const { api, org } = useStudio();
  return useQuery(projectsQuery(api, org.id));
}

/** Makes a key; its answer goes to the caller only, never into a cache. */
export async function createKey(
  { api, org }: Pick<Studio, 'api' | 'org'>,
  body: { name: string; expiresAt?: string; projectId?: string } & Partial<KeyMemory>,
) {
  return data(api.POST('/api/v1/api-keys', { params: { header: inOrg(org.id) }, body }));
}

export async function revokeKey({ api, org }: Pick<Studio, 'api' | 'org'>, id: string) {
  await data(
    api.DELETE('/api/v1/api-keys/{id}', { params: { header: inOrg(org.id), path: { id } } }),
  );
}

/** Changes a key's memory settings; the API answers the key as it now is. */
export async function updateKeyMemory(
  { api, org }: Pick<Studio, 'api' | 'org'>,
  id: string,
  body: Partial<KeyMemory>,
) {
  const answer = await data(
    api.PATCH('/api/v1/api-keys/{id}', { params: { header: inOrg(org.id), path: { id } }, body }),
  );
  return answer.key;
}
