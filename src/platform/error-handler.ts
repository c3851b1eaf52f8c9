import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreUnavailable } from '../db/availability.ts';
import { ApiError } from './errors.ts';
import { describeValidationError } from './validation-messages.ts';

/** Every answer of the service carries this; set in one place. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store');
}

export function sendError(reply: FastifyReply, status: number, message: string) {
  return noStore(reply)
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ error: message });
}

/**
 * The store cannot be reached or answered too late (db/availability.ts): the request did not
 * happen (a write is one transaction, rolled back), and the same request may succeed shortly.
 */
export const STORE_UNAVAILABLE_MESSAGE = 'the store is unavailable; retry shortly';
export const STORE_RETRY_AFTER_SECONDS = 2;

export function sendStoreUnavailable(reply: FastifyReply) {
  return sendError(
    reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS)),
    503,
    STORE_UNAVAILABLE_MESSAGE,
  );
}

// Fastify's own 4xx errors, with messages a client can act on.
const frameworkMessages: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed JSON body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed JSON body: the body is empty',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Content-Type must be application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
  FST_ERR_BAD_URL: 'malformed URL',
  FST_ERR_ASYNC_CONSTRAINT: 'malformed request',
};

/**
 * One renderer for every error of the HTTP interface: `{"error": "…"}`, no stack, no internal
 * message. 5xx details go to the log only. A store that is unreachable or too slow answers 503
 * with `Retry-After`, wherever it failed (authentication reads it too); any other failure, 500.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      reply.headers(error.headers);
      return noStore(reply)
        .code(error.status)
        .send({ error: error.message, ...error.body });
    }
    if (error.validation) {
      return sendError(
        reply,
        400,
        describeValidationError(error.validation, error.validationContext),
      );
    }
    if (isStoreUnavailable(error)) {
      request.log.warn({ err: error }, 'store unavailable');
      return sendStoreUnavailable(reply);
    }
    const status = error.statusCode ?? 500;
    if (status < 500) {
      const known = frameworkMessages[error.code];
      if (known) return sendError(reply, status, known);
      if (error instanceof SyntaxError) return sendError(reply, 400, 'malformed JSON body');
      request.log.info({ err: error }, 'client error');
      return sendError(reply, status, 'bad request');
    }
    request.log.error({ err: error }, 'internal error');
    return sendError(reply, 500, 'internal server error');
  });

  app.setNotFoundHandler((_request, reply) => sendError(reply, 404, 'not found'));
}

/** Errors Fastify raises before routing (bad URL encoding, …) bypass setErrorHandler. */
export function frameworkErrors(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
) {
  return sendError(reply, 400, frameworkMessages[error.code] ?? 'malformed request');
}
