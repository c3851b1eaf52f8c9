import { type ApiClient, data, inOrg } from './client.ts';
import type { components, paths } from './openapi.d.ts';

export type Member = components['schemas']['Member'];
export type Organization = components['schemas']['Organization'];
export type Project = components['schemas']['Project'];
export type Collaborator = components['schemas']['Collaborator'];
export type ApiKey = components['schemas']['ApiKey'];
export type Connection = components['schemas']['Connection'];
export type App = components['schemas']['App'];
/** The organization's apps, oldest first, and this server's request rates. */
export type AppList =
  paths['/api/v1/orgs/{orgId}/apps']['get']['responses'][200]['content']['application/json'];

/*
 * The platform's resources that several pages show, each under one cache key, so that a change
 * made on one page (a member added, a key revoked) is what every other page shows next.
 * Invalidations name the same keys: `queryKeys.members(org.id)`.
 */
export const queryKeys = {
  members: (orgId: string) => ['members', orgId] as const,
  organization: (orgId: string) => ['organization', orgId] as const,
  /** Also the prefix of every project's collaborators. */
  projects: (orgId: string) => ['projects', orgId] as const,
  collaborators: (orgId: string, projectId: string) =>
    ['projects', orgId, projectId, 'collaborators'] as const,
  apiKeys: (orgId: string) => ['api-keys', orgId] as const,
  /** The person's own, in whichever organization each acts: no organization in the key. */
  connections: () => ['connections'] as const,
  apps: (orgId: string) => ['apps', orgId] as const,
};

/** An organization's members, in the order they joined. */
export const membersQuery = (api: ApiClient, orgId: string) => ({
  queryKey: queryKeys.members(orgId),
  queryFn: async (): Promise<Member[]> =>
    (await data(api.GET('/api/v1/orgs/{orgId}/members', { params: { path: { orgId } } }))).members,
});

/** The organization's settings, with its effective memory switch. */
export const organizationQuery = (api: ApiClient, orgId: string) => ({
  queryKey: queryKeys.organization(orgId),
  queryFn: async (): Promise<Organization> =>
    (await data(api.GET('/api/v1/orgs/{orgId}', { params: { path: { orgId } } }))).organization,
});

/** The projects the signed-in person can see in an organization (owners and admins: all), by name. */
export const projectsQuery = (api: ApiClient, orgId: string) => ({
  queryKey: queryKeys.projects(orgId),
  queryFn: async (): Promise<Project[]> =>
    (await data(api.GET('/api/v1/orgs/{orgId}/projects', { params: { path: { orgId } } })))
      .projects,
});

/** Who has access to a project, in the order they were granted it. */
export const collaboratorsQuery = (api: ApiClient, orgId: string, projectId: string) => ({
  queryKey: queryKeys.collaborators(orgId, projectId),
  queryFn: async (): Promise<Collaborator[]> =>
    (
      await data(
        api.GET('/api/v1/projects/{projectId}/collaborators', {
          params: { path: { projectId } },
        }),
      )
    ).collaborators,
});

/**
 * The API keys the person may see (owners and admins: the organization's), newest first. Only
 * the list is ever cached: a new key's secret never is (keys/create-key-dialog.tsx).
 */
export const apiKeysQuery = (api: ApiClient, orgId: string) => ({
  queryKey: queryKeys.apiKeys(orgId),
  queryFn: async (): Promise<ApiKey[]> =>
    (await data(api.GET('/api/v1/api-keys', { params: { header: inOrg(orgId) } }))).keys,
});

/**
 * The MCP clients the person connected (their account's, not one organization's), newest first:
 * a connection whose grant expired is not listed.
 */
export const connectionsQuery = (api: ApiClient) => ({
  queryKey: queryKeys.connections(),
  queryFn: async (): Promise<Connection[]> =>
    (await data(api.GET('/api/v1/me/connections'))).connections,
});

/**
 * The organization's apps (owners and admins), oldest first, with this server's request rates.
 * Only the list is ever cached: an app's secret never is (apps/app-secret-view.tsx).
 */
export const appsQuery = (api: ApiClient, orgId: string) => ({
  queryKey: queryKeys.apps(orgId),
  queryFn: async (): Promise<AppList> =>
    data(api.GET('/api/v1/orgs/{orgId}/apps', { params: { path: { orgId } } })),
});
