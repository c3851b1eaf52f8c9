import type {} from '@fastify/swagger';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { sendError } from './error-handler.ts';

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A known path with a method it does not serve answers 405 with `Allow`, not 404. */
export function registerMethodNotAllowed(
  app: FastifyInstance,
  url: string,
  allowed: HTTPMethods[],
): void {
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', ');
  app.route({
    method: METHODS.filter((m) => !allowed.includes(m)),
    url,
    schema: { hide: true },
    handler: (_request, reply) =>
      sendError(reply.header('allow', allow), 405, 'method not allowed'),
  });
}
