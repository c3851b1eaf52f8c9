/**
 * Requests to a mnemo server's HTTP API as the person `mnemo login` signed in: the same requests
 * any client of the API makes, so the same rules, audit and rate limits apply, and a refusal is
 * the API's own sentence (its `{"error"}`), thrown as an ApiError with the answer's status.
 */

import { ApiError } from '../platform/errors.ts';
import type { MeResponse } from '../tenancy/index.ts';

export interface ApiSessionOptions {
  /** The server's public URL: the API is under it. */
  readonly publicUrl: string;
  /** An access token valid for a while yet (refreshed when it is not); throws when there is none. */
  readonly accessToken: () => Promise<string>;
  /** The organization to act in (`--org`); by default the user's only one. */
  readonly orgId: string | undefined;
  /** The command a person runs again with `--org ID` when they belong to several. */
  readonly command: string;
}

/** How long the server may take to start answering a request. */
const REQUEST_TIMEOUT_MS = 30_000;

type Query = Record<string, string | number | undefined>;

export interface Call {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly query?: Query;
  readonly body?: Record<string, unknown>;
  /** Whether the request acts in the organization (`X-Organization-Id`). */
  readonly inOrganization?: boolean;
}

export interface Answer<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export function createApiSession(options: ApiSessionOptions) {
  const { publicUrl } = options;
  /** The organization once known: it does not change while the process runs. */
  let organization: Promise<string> | undefined;

  /** The answer as it comes, its body not read yet; a refusal thrown as an ApiError. */
  async function open(path: string, call: Call = {}): Promise<Response> {
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
    // The time limit is for the answer to start: a long export keeps streaming after it.
    const started = new AbortController();
    const timer = setTimeout(
      () => started.abort(new DOMException('timed out', 'TimeoutError')),
      REQUEST_TIMEOUT_MS,
    );
    let response: Response;
    try {
      response = await fetch(url, {
        method: call.method ?? 'GET',
        headers,
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal: started.signal,
      });
    } catch (error) {
      throw new ApiError(503, 'unreachable', `cannot reach ${publicUrl}: ${networkReason(error)}`);
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) {
      const body = parseJson(await response.text().catch(() => ''));
      const message = errorMessage(body) ?? `${publicUrl} answered HTTP ${response.status}`;
      const retryAfter = response.headers.get('retry-after');
      throw new ApiError(response.status, 'refused', message, {
        headers: retryAfter === null ? {} : { 'retry-after': retryAfter },
      });
    }
    return response;
  }

  async function request<T>(path: string, call: Call = {}): Promise<Answer<T>> {
    const response = await open(path, call);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new ApiError(503, 'unreachable', `cannot reach ${publicUrl}: ${networkReason(error)}`);
    }
    return { status: response.status, headers: response.headers, body: parseJson(text) as T };
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
        `${user.email} belongs to several organizations: ${named}; run ${options.command} with --org ID to choose one`,
      );
    }
    return only.id;
  }

  return { open, request, get, me, organizationId };
}

export type ApiSession = ReturnType<typeof createApiSession>;

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
