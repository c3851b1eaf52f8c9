import type { FastifyError, FastifyRequest } from 'fastify';
import { isStoreUnavailable } from '../db/availability.ts';
import { formatBytes } from './byte-sizes.ts';
import { ApiError } from './errors.ts';
import { describeValidationError } from './validation-messages.ts';

/**
 * What went wrong, before any interface has shaped it: the status, a stable code, a message
 * for people, and headers that go with it (`retry-after`, `allow`, …).
 */
export interface Failure {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Further top-level fields of an `/api` error body (a 409's current memory). */
  readonly body?: Readonly<Record<string, unknown>>;
}

/**
 * The store cannot be reached or answered too late (db/availability.ts): the request did not
 * happen (a write is one transaction, rolled back), and the same request may succeed shortly.
 */
export const STORE_UNAVAILABLE_MESSAGE = 'the store is unavailable; retry shortly';
export const STORE_RETRY_AFTER_SECONDS = 2;

// Fastify's own 4xx errors, with messages a client can act on (the body limit is added where
// it is known: it is the route's).
const FRAMEWORK_FAILURES: Record<string, { code: string; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'malformed_json', message: 'malformed JSON body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'malformed_json',
    message: 'malformed JSON body: the body is empty',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'request_too_large', message: 'request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'Content-Type must be application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'content_length_mismatch',
    message: 'Content-Length does not match the body',
  },
  FST_ERR_BAD_URL: {
    code: 'malformed_url',
    message: 'malformed URL: a % must begin a percent-encoded UTF-8 sequence',
  },
};

/**
 * Any error raised while serving a request, as a Failure that any interface can shape: the
 * interface's own errors as they are, a schema violation as a message naming the field, a
 * store that is unreachable or too slow as 503 with `Retry-After` (wherever it failed:
 * authentication reads it too), Fastify's 4xx with messages a client can act on, anything else
 * a 500 that shows nothing. 5xx details go to the log only.
 */
export function failureOf(error: FastifyError, request: FastifyRequest): Failure {
  if (error instanceof ApiError) {
    return {
      status: error.status,
      code: error.code,
      message: error.message,
      headers: error.headers,
      body: error.body,
    };
  }
  if (error.validation) {
    return {
      status: 400,
      code: 'invalid_request',
      message: describeValidationError(error.validation, error.validationContext),
    };
  }
  if (isStoreUnavailable(error)) {
    request.log.warn({ err: error }, 'store unavailable');
    return STORE_UNAVAILABLE;
  }
  const status = error.statusCode ?? 500;
  if (status < 500) {
    const known = FRAMEWORK_FAILURES[error.code];
    if (known && error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit ?? request.server.initialConfig.bodyLimit;
      const message =
        limit === undefined ? known.message : `${known.message}: at most ${formatBytes(limit)}`;
      return { status, code: known.code, message };
    }
    if (known) return { status, ...known };
    if (error instanceof SyntaxError) {
      return { status: 400, code: 'malformed_json', message: 'malformed JSON body' };
    }
    request.log.info({ err: error }, 'client error');
    return { status, code: 'bad_request', message: 'bad request' };
  }
  if (error === request.signal.reason) {
    // The client left, and what it asked was given up (request.signal): nothing reaches it.
    // 499, as the chat interface records a caller that left.
    request.log.info('the client left before the answer');
    return { status: 499, code: 'client_closed_request', message: 'the client left' };
  }
  request.log.error({ err: error }, 'internal error');
  return { status: 500, code: 'internal_error', message: 'internal server error' };
}

const STORE_UNAVAILABLE: Failure = {
  status: 503,
  code: 'service_unavailable',
  message: STORE_UNAVAILABLE_MESSAGE,
  headers: { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) },
};
