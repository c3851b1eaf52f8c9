import createClient from 'openapi-fetch';
import type { Session } from '../auth/session.ts';
import { ApiError, errorFromBody } from './errors.ts';
import type { paths } from './openapi.d.ts';

/** How many times a 429 is waited out before it is shown. */
const RATE_LIMIT_RETRIES = 3;
/** The longest a 429's Retry-After is waited for quietly. */
const MAX_RETRY_WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * fetch for the platform API on behalf of the signed-in person: the access token on every
 * request; a 401 renews it once (a token that expired in flight, or a revoked grant, which
 * leads back to sign-in); a 429 waits for its Retry-After quietly, since the rate budget is
 * shared with the person's own scripts. A request that got no answer is an ApiError with
 * status 0.
 *
 * `waitOutRateLimits: false` hands a 429 back instead, for work that shows its own waiting (an
 * import, whose budget of memories a minute can mean a minute's pause):
 *
 * @example
 * api.POST('/api/v1/memory/import', { body, fetch: createAuthorizedFetch(session, { waitOutRateLimits: false }) });
 */
export function createAuthorizedFetch(
  session: Session,
  options: { waitOutRateLimits?: boolean } = {},
) {
  const retries = options.waitOutRateLimits === false ? 0 : RATE_LIMIT_RETRIES;
  return async function authorizedFetch(request: Request): Promise<Response> {
    const send = async (token: string) => {
      const attempt = request.clone();
      attempt.headers.set('authorization', `Bearer ${token}`);
      try {
        return await fetch(attempt);
      } catch (error) {
        if (request.signal.aborted) throw error;
        throw new ApiError(0, 'network error');
      }
    };
    let response = await send(await session.accessToken());
    if (response.status === 401) response = await send(await session.renew());
    for (let retry = 0; response.status === 429 && retry < retries; retry++) {
      await sleep(Math.min(MAX_RETRY_WAIT_MS, retryAfterSeconds(response) * 1000));
      response = await send(await session.accessToken());
    }
    return response;
  };
}

/** A 429's Retry-After in seconds (mnemo sends delay-seconds); 1 when it is missing or unreadable. */
export function retryAfterSeconds(response: Response): number {
  const header = response.headers.get('retry-after');
  const seconds = header === null ? Number.NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : 1;
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The platform API, typed from mnemo's own OpenAPI document (openapi.d.ts). */
export function createApiClient(session: Session) {
  return createClient<paths>({ baseUrl: location.origin, fetch: createAuthorizedFetch(session) });
}

/** The `X-Organization-Id` header parameter most platform routes take. */
export const inOrg = (orgId: string) => ({ 'x-organization-id': orgId });

/**
 * The data of an openapi-fetch result, or its error thrown as an ApiError, so that callers (and
 * TanStack Query) handle one kind of failure.
 */
export async function data<T>(
  result: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data: body, error, response } = await result;
  // openapi-fetch has read the error body already: its parsed form is `error`.
  if (!response.ok) throw errorFromBody(response, error);
  return body as T;
}
