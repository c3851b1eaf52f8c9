import { useQuery } from '@tanstack/react-query';
import { data } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { appsQuery } from '../api/queries.ts';
import { isManager, type Studio, useStudio } from '../app/studio-context.tsx';
import type { AppRole } from './app-words.ts';

/** The organization's apps and the server's rates, under the one cache key every page shares. */
export function useApps() {
  const { api, org } = useStudio();
  return useQuery({ ...appsQuery(api, org.id), enabled: isManager(org) });
}

type Caller = Pick<Studio, 'api' | 'org'>;

/** Registers an app; its answer (with the secret) goes to the caller only, never into a cache. */
export async function registerApp(
  { api, org }: Caller,
  body: { name: string; role: AppRole; rateLimitPerMinute?: number },
) {
  return data(api.POST('/api/v1/orgs/{orgId}/apps', { params: { path: { orgId: org.id } }, body }));
}

/** Changes an app's role or rate limit (null: back to the default); answers the app as it is. */
export async function updateApp(
  { api, org }: Caller,
  appId: string,
  body: { role?: AppRole; rateLimitPerMinute?: number | null },
) {
  const answer = await data(
    api.PATCH('/api/v1/orgs/{orgId}/apps/{appId}', {
      params: { path: { orgId: org.id, appId } },
      body,
    }),
  );
  return answer.app;
}

/** A new secret, shown once by the caller; the old one stops working at once. */
export async function replaceSecret({ api, org }: Caller, appId: string) {
  return data(
    api.POST('/api/v1/orgs/{orgId}/apps/{appId}/secret', {
      params: { path: { orgId: org.id, appId } },
    }),
  );
}

/**
 * Revokes an app. A 404 means it is gone already (revoked in another tab): what the person
 * asked for is done, so it is an outcome, not a failure.
 */
export async function revokeApp({ api, org }: Caller, appId: string): Promise<'revoked' | 'gone'> {
  try {
    await data(
      api.DELETE('/api/v1/orgs/{orgId}/apps/{appId}', {
        params: { path: { orgId: org.id, appId } },
      }),
    );
    return 'revoked';
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return 'gone';
    throw error;
  }
}
