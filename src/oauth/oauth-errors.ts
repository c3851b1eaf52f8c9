import type { ErrorShape } from '../platform/error-surfaces.ts';
import type { Failure } from '../platform/failure.ts';

/**
 * RFC 6749's error code for a failure that is not one of OAuth's own: the server's
 * (`server_error`), the store's (`temporarily_unavailable`, as §4.1.2.1 names it), and any
 * request it cannot take (`invalid_request`, §5.2).
 */
function oauthCodeOf(failure: Failure): string {
  if (failure.status === 503) return 'temporarily_unavailable';
  if (failure.status >= 500) return 'server_error';
  return 'invalid_request';
}

/**
 * `/oauth`'s shape (RFC 6749 §5.2): `{"error", "error_description"}`, for failures raised
 * outside the authorization server's own handlers (Node's parser, Fastify, a 405).
 */
export const oauthErrorShape: ErrorShape = (failure) => ({
  body: { error: oauthCodeOf(failure), error_description: failure.message },
});
