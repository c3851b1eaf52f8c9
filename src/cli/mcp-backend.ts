/**
 * The MCP tools of `mnemo mcp`, done through a mnemo server's HTTP API with the credential
 * `mnemo login` keeps: the same requests any client of the API makes, so the same rules, audit
 * and rate limit apply, and a refusal is the API's own sentence (its `{"error"}`).
 */

import type {
  AddOutput,
  ListOutput,
  MemoryOutput,
  ProjectsOutput,
  SearchOutput,
  WhoamiOutput,
} from '../mcp/memory-tools.schemas.ts';
import type { MemoryToolsBackend } from '../mcp/memory-tools.ts';
import type { MemoryItem } from '../memory/memory.schemas.ts';
import type { MeResponse } from '../orgs/orgs.schemas.ts';
import { ApiError } from '../platform/errors.ts';

export interface RestBackendOptions {
  /** The server's public URL: the API is under it. */
  readonly publicUrl: string;
  /** An access token valid for a while yet (refreshed when it is not); throws when there is none. */
  readonly accessToken: () => Promise<string>;
  /** The organization to act in (`--org`); by default the user's only one. */
  readonly orgId: string | undefined;
}

/** How long one request to the server may take. */
const REQUEST_TIMEOUT_MS = 30_000;

type Query = Record<string, string | number | undefined>;

interface Call {
  readonly method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly query?: Query;
  readonly body?: Record<string, unknown>;
  /** Whether the request acts in the organization (`X-Organization-Id`). */
  readonly inOrganization?: boolean;
}

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
  const { publicUrl } = options;
  /** The organization once known: it does not change while the process serves. */
  let organization: Promise<string> | undefined;

  async function request<T>(path: string, call: Call = {}): Promise<{ status: number; body: T }> {
    let token: string;
    try {
      token = await options.accessToken();
    } catch (error) {
      // Not signed in, or the sign-in cannot be refreshed: the sentence says what to do.
      throw new ApiError(401, 'unauthenticated', messageOf(error));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (call.inOrganization !== false) headers['x-organization-id'] = await organizationId();
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const url = new URL(`${publicUrl}${path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: call.method ?? 'GET',
        headers,
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      throw new ApiError(503, 'unreachable', `cannot reach ${publicUrl}: ${networkReason(error)}`);
    }
    const body = parseJson(text);
    if (!response.ok) {
      const message = errorMessage(body) ?? `${publicUrl} answered HTTP ${response.status}`;
      throw new ApiError(response.status, 'refused', message);
    }
    return { status: response.status, body: body as T };
  }

  const get = async <T>(path: string, call: Call = {}) => (await request<T>(path, call)).body;

  /** Who the credential belongs to, and its organizations (`GET /api/v1/me`). */
  const me = () => get<MeResponse>('/api/v1/me', { inOrganization: false });

  function organizationId(): Promise<string> {
    if (options.orgId !== undefined) return Promise.resolve(options.orgId);
    organization ??= onlyOrganization();
    // A failure is not kept: the person may join an organization and call again.
    organization.catch(() => {
      organization = undefined;
    });
    return organization;
  }

  async function onlyOrganization(): Promise<string> {
    const { user, organizations } = await me();
    const [only, ...others] = organizations;
    if (!only) {
      throw new ApiError(403, 'forbidden', `${user.email} belongs to no organization`);
    }
    if (others.length > 0) {
      const named = organizations.map((org) => `${org.name} (${org.id})`).join(', ');
      throw new ApiError(
        400,
        'ambiguous_organization',
        `${user.email} belongs to several organizations: ${named}; start mnemo mcp with --org ID to choose one`,
      );
    }
    return only.id;
  }

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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorMessage(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  return typeof error === 'string' ? error : undefined;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Why a request got no answer: a timeout, or the network's code (ECONNREFUSED, …). */
function networkReason(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'timed out';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return messageOf(error);
}
