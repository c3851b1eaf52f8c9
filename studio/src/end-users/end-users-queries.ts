import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import { type ApiClient, data } from '../api/client.ts';
import type { components } from '../api/openapi.d.ts';

export type EndUser = components['schemas']['EndUser'];

/** An end user with how many memories are held of them: what an erasure deletes. */
export interface EndUserDetail extends EndUser {
  readonly memories: { readonly own: number; readonly pools: number };
}

export interface EndUsersPage {
  readonly endUsers: EndUser[];
  readonly total: number;
  readonly cursor?: string;
  /** The search this page answers: a list kept in view while the next search runs says so. */
  readonly q: string;
}

/** End users a page holds: the API's default. */
export const PAGE_SIZE = 50;

/** Every list and every single end user of an organization starts with this key. */
export const endUsersKey = (orgId: string) => ['end-users', orgId] as const;

/** The organization's end users whose id or name starts with `q` (all when empty), newest first. */
export const endUsersListQuery = (api: ApiClient, orgId: string, q: string) => ({
  queryKey: [...endUsersKey(orgId), 'list', q] as const,
  initialPageParam: undefined as string | undefined,
  queryFn: async ({ pageParam }: { pageParam: string | undefined }): Promise<EndUsersPage> => ({
    ...(await data(
      api.GET('/api/v1/orgs/{orgId}/end-users', {
        params: {
          path: { orgId },
          query: {
            limit: PAGE_SIZE,
            ...(q === '' ? {} : { q }),
            ...(pageParam === undefined ? {} : { cursor: pageParam }),
          },
        },
      }),
    )),
    q,
  }),
  getNextPageParam: (page: EndUsersPage) => page.cursor,
});

/** One end user by the app's id, with their memory counts; a 404 when there is none. */
export const endUserQuery = (api: ApiClient, orgId: string, externalId: string) => ({
  queryKey: [...endUsersKey(orgId), 'one', externalId] as const,
  queryFn: async (): Promise<EndUserDetail> =>
    (
      await data(
        api.GET('/api/v1/orgs/{orgId}/end-users/{externalId}', {
          // openapi-fetch percent-encodes path parameters itself (a `/` as `%2F`).
          params: { path: { orgId, externalId } },
        }),
      )
    ).endUser,
});

/**
 * Erases the end user and all that is held of them. The API answers the same whether or not
 * there was anyone left to erase.
 */
export async function eraseEndUser(api: ApiClient, orgId: string, externalId: string) {
  await data(
    api.DELETE('/api/v1/orgs/{orgId}/end-users/{externalId}', {
      params: { path: { orgId, externalId } },
    }),
  );
}

/**
 * Takes an erased end user out of every list shown, and the count with them, before the lists
 * are read again: the row goes at once, not a round trip later.
 */
export function forgetEndUser(queryClient: QueryClient, orgId: string, erased: EndUser) {
  queryClient.setQueriesData<InfiniteData<EndUsersPage, string | undefined>>(
    { queryKey: [...endUsersKey(orgId), 'list'] },
    (list) => {
      if (!list) return list;
      const held = list.pages.some((page) => page.endUsers.some((e) => e.id === erased.id));
      if (!held) return list;
      return {
        ...list,
        pages: list.pages.map((page) => ({
          ...page,
          endUsers: page.endUsers.filter((e) => e.id !== erased.id),
          total: Math.max(0, page.total - 1),
        })),
      };
    },
  );
  queryClient.removeQueries({ queryKey: [...endUsersKey(orgId), 'one', erased.externalId] });
}

/** How pages name an end user: the name the app gave, else its id for them. */
export const endUserName = (endUser: { externalId: string; name?: string | undefined }) =>
  endUser.name ?? endUser.externalId;

/**
 * The studio path of an end user's memories. The id is the app's, any text: one path segment,
 * percent-encoded (a `/` as `%2F`).
 */
export const endUserMemoriesPath = (externalId: string) =>
  `/memories/end-users/${encodeURIComponent(externalId)}`;
