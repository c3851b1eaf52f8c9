import { METHODS as NODE_METHODS } from 'node:http';
import type {} from '@fastify/swagger';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { ApiError } from './errors.ts';

/**
 * Methods no path answers with a 405: OPTIONS is CORS's preflight (a 404 on a path that takes no
 * cross-origin calls), and Node hands CONNECT to the server's `connect` event, never to a route.
 */
const NOT_ROUTED = new Set(['OPTIONS', 'CONNECT']);

/** Every method Node's parser accepts (a request with another never reaches the app: 400). */
const ROUTED_METHODS = NODE_METHODS.filter((method) => !NOT_ROUTED.has(method));

/** The methods routes serve; any other is only ever answered 405 or 404. */
const SERVED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Teaches `app` every method Node accepts, so that a path can answer any of them with a 405:
 * Fastify routes nine by default, and a request with another would find no route (404). Those no
 * route serves are taught as taking no body, QUERY too: Fastify would otherwise refuse a QUERY
 * without a content type with a bare 400 before any route or not-found handler could answer.
 */
export function routeEveryMethod(app: FastifyInstance): void {
  for (const method of ROUTED_METHODS) {
    if (!SERVED_METHODS.has(method)) {
      app.addHttpMethod(method, { hasBody: false, overrideExisting: true });
    }
  }
}

/**
 * A known path with a method it does not serve — whatever the method (TRACE, QUERY, PROPFIND…),
 * with or without a body — answers 405 with `Allow`, not 404, in the shape of the interface that
 * owns the path (`{"error"}` on /api, RFC 6749's on /oauth). Needs `routeEveryMethod` first.
 */
export function registerMethodNotAllowed(
  app: FastifyInstance,
  url: string,
  allowed: HTTPMethods[],
): void {
  const served = new Set<string>([...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])]);
  const allow = [...served].join(', ');
  app.route({
    method: ROUTED_METHODS.filter((method) => !served.has(method)) as HTTPMethods[],
    url,
    schema: { hide: true },
    // Answered before the body is read or its type checked: a 400 or a 415 would hide the 405.
    onRequest: async () => {
      throw new ApiError(405, 'method_not_allowed', 'method not allowed', { headers: { allow } });
    },
    handler: async () => undefined,
  });
}
