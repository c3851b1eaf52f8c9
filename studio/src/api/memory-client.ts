/**
 * The memory API through mnemo's TypeScript client (clients/typescript), as any app calls it:
 * the studio keeps its copy of a store with the client's mirror rather than a procedure of its
 * own. Requests go through the studio's authorized fetch (a 401 renews the session once); the
 * client waits out 429s itself.
 */
import { Mnemo, MnemoError, type RetryOptions } from '../../../clients/typescript/src/index.ts';
import type { Session } from '../auth/session.ts';
import { createAuthorizedFetch } from './client.ts';
import { ApiError } from './errors.ts';

/**
 * A client of this origin's mnemo acting in `orgId` as the signed-in person; `retry` as the
 * client takes it (`{ maxRetries: 0 }`: a 429 is thrown at once, for a caller with something
 * else to do meanwhile).
 */
export function createMemoryClient(
  session: Session,
  orgId: string,
  options: { retry?: RetryOptions } = {},
): Mnemo {
  const authorized = createAuthorizedFetch(session, { waitOutRateLimits: false });
  return new Mnemo({
    baseUrl: location.origin,
    organizationId: orgId,
    auth: () => session.accessToken(),
    fetch: (input, init) => authorized(new Request(input, init)),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
  });
}

/** The client's refusals as the studio's ApiError, which its pages know how to explain. */
export function asApiError(error: unknown): unknown {
  return error instanceof MnemoError ? new ApiError(error.status, error.message) : error;
}
