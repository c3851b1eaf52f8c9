import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorSurfaces } from './error-surfaces.ts';
import { failureOf, STORE_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE_MESSAGE } from './failure.ts';

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

export function sendStoreUnavailable(reply: FastifyReply) {
  return sendError(
    reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS)),
    503,
    STORE_UNAVAILABLE_MESSAGE,
  );
}

/**
 * The app-wide error and not-found handlers: every failure in the shape of the interface that
 * owns the request's path (error-surfaces.ts), so a route registered at the root under /oauth
 * (a 405, say) answers in OAuth's shape. Interfaces with handlers of their own (/v1, /oauth)
 * shape the same Failure.
 */
export function registerErrorHandling(app: FastifyInstance, surfaces: ErrorSurfaces): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    surfaces.send(request, reply, failureOf(error, request)),
  );
  app.setNotFoundHandler((request, reply) =>
    surfaces.send(request, reply, { status: 404, code: 'not_found', message: 'not found' }),
  );
}
