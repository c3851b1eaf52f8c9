import { useQuery } from '@tanstack/react-query';
import { data, inOrg } from '../api/client.ts';
import type { components } from '../api/openapi.d.ts';
import type { Studio } from '../app/studio-context.tsx';
import { useStudio } from '../app/studio-context.tsx';

/** A memory a chat call learned, waiting for its owner to accept or drop it. */
export type Proposal = components['schemas']['MemoryProposal'];

/** What accepting saved: the memory, or (folded) the one that already said the same. */
export type Accepted = Awaited<ReturnType<typeof acceptProposal>>;

/**
 * Chat calls add to the queue while the page is open (MNEMO_MEMORY_EXTRACTION=review): it is
 * asked again this often while the tab is visible, well inside the person's request budget
 * beside the memory list's own pulls.
 */
const REFETCH_MS = 15_000;

export const proposalsKey = (orgId: string) => ['memory-proposals', orgId] as const;

/** The person's own queue, oldest first; not asked for when `enabled` is false. */
export function useProposals(enabled: boolean) {
  const { api, org } = useStudio();
  return useQuery({
    queryKey: proposalsKey(org.id),
    queryFn: async (): Promise<Proposal[]> =>
      (await data(api.GET('/api/v1/memory-proposals', { params: { header: inOrg(org.id) } })))
        .proposals,
    enabled,
    refetchInterval: REFETCH_MS,
  });
}

export function acceptProposal({ api, org }: Pick<Studio, 'api' | 'org'>, id: string) {
  return data(
    api.POST('/api/v1/memory-proposals/{id}/accept', {
      params: { header: inOrg(org.id), path: { id } },
    }),
  );
}

export async function dropProposal({ api, org }: Pick<Studio, 'api' | 'org'>, id: string) {
  await data(
    api.DELETE('/api/v1/memory-proposals/{id}', {
      params: { header: inOrg(org.id), path: { id } },
    }),
  );
}
