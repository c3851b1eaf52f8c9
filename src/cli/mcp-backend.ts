/**
 * The MCP tools of `mnemo mcp`, done through a mnemo server's HTTP API with the credential
 * `mnemo login` keeps: the same requests any client of the API makes, so the same rules, audit
 * and rate limit apply, and a refusal is the API's own sentence (its `{"error"}`).
 */

import type {
  AddOutput,
  ListOutput,
  MemoryOutput,
  MemoryToolsBackend,
  ProjectsOutput,
  SearchOutput,
  WhoamiOutput,
} from '../mcp/index.ts';
import type { MemoryItem } from '../memory/index.ts';
import { ApiError } from '../platform/errors.ts';
import { type ApiSessionOptions, createApiSession } from './api-session.ts';

export type RestBackendOptions = Omit<ApiSessionOptions, 'command'>;

/**
 * @example
 * const backend = createRestBackend({
 *   publicUrl: 'https://mnemo.example.com',
 *   accessToken: () => currentAccessToken('https://mnemo.example.com/oauth'),
 *   orgId: undefined,
 * });
 * serveStdio(() => createMemoryToolsServer(backend, options));
 */
export function createRestBackend(options: RestBackendOptions): MemoryToolsBackend {
  const { request, get, me, organizationId } = createApiSession({
    ...options,
    command: 'mnemo mcp',
  });

  const memoryPath = (id: string) => `/api/v1/memory/${encodeURIComponent(id)}`;

  return {
    search: ({ query, category, limit, project, user }) =>
      get<SearchOutput>('/api/v1/memory/search', {
        query: { q: query, category, limit, project, user },
      }),
    list: ({ since, project, user }) =>
      get<ListOutput>('/api/v1/memory', { query: { since, project, user } }),
    get: async ({ id, user }) =>
      (await get<MemoryOutput>(memoryPath(id), { query: { user } })).memory,
    async add({ content, category, project, user }) {
      const { status, body } = await request<{ memory: AddOutput['memory'] }>('/api/v1/memory', {
        method: 'POST',
        body: { content, category, project, user },
      });
      // 201: a new memory; 200: folded into an existing one (docs/design.md §3.1).
      return { memory: body.memory, folded: status !== 201 };
    },
    update: async ({ id, user, content, category }): Promise<MemoryItem> =>
      (
        await get<MemoryOutput>(memoryPath(id), {
          method: 'PATCH',
          query: { user },
          body: { content, ...(category === undefined ? {} : { category }) },
        })
      ).memory,
    async remove({ id, user }) {
      await request(memoryPath(id), { method: 'DELETE', query: { user } });
    },
    listProjects: async () =>
      get<ProjectsOutput>(`/api/v1/orgs/${await organizationId()}/projects`),
    async whoami(): Promise<WhoamiOutput> {
      const [orgId, { user, organizations }] = await Promise.all([organizationId(), me()]);
      const organization = organizations.find((org) => org.id === orgId);
      if (!organization) throw new ApiError(403, 'forbidden', 'not a member of this organization');
      return {
        user,
        organization: { id: organization.id, name: organization.name },
        role: organization.role,
      };
    },
  };
}
