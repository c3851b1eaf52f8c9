import type {} from '@fastify/swagger';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { ApiError } from './errors.ts';

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A known path with a method it does not serve answers 405 with `Allow`, not 404, in the shape
 * of the interface that owns the path (`{"error"}` on /api, RFC 6749's on /oauth).
 */
export function registerMethodNotAllowed(
  app: FastifyInstance,
  url: string,
  allowed: HTTPMethods[],
): void {
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', ');
  app.register(async (scoped) => {
    // Whatever the body and its type, the answer is the same: nothing is parsed (a 415 would
    // hide the 405).
    scoped.removeAllContentTypeParsers();
    scoped.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scoped.route({
      method: METHODS.filter((m) => !allowed.includes(m)),
      url,
      schema: { hide: true },
      handler: async () => {
        throw new ApiError(405, 'method_not_allowed', 'method not allowed', {
          headers: { allow },
        });
      },
    });
  });
}
