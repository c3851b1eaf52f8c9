import { useQuery } from '@tanstack/react-query';
import { type ApiClient, data } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { connectionsQuery } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';

/** The person's connected apps, under the one cache key every page shares. */
export function useConnections() {
  const { api } = useStudio();
  return useQuery(connectionsQuery(api));
}

/**
 * Revokes a connection: `/mcp` refuses its tokens from the next request. A 404 means it is gone
 * already (disconnected in another tab, or its grant expired): what the person asked for is
 * done, so it is an outcome, not a failure.
 */
export async function disconnect(api: ApiClient, id: string): Promise<'disconnected' | 'gone'> {
  try {
    await data(api.DELETE('/api/v1/me/connections/{id}', { params: { path: { id } } }));
    return 'disconnected';
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return 'gone';
    throw error;
  }
}
