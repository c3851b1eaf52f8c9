import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireScope } from '../credentials/index.ts';
import { optionalJsonBody, requireJsonBody } from '../platform/json-body.ts';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The routes under `/api/v1/orgs/{orgId}` (and a project's, which belongs to one) share their
 * checks: the caller is an active member of the organization in the path, with the `admin`
 * scope; bodies are JSON (`body: 'optional'`: a PUT may also send none).
 */
export function orgScopedHooks(
  app: FastifyInstance,
  authenticate: Hook,
  options: { body?: 'required' | 'optional' } = {},
): void {
  app.addHook('onRequest', authenticate);
  app.addHook('onRequest', requireScope('admin'));
  app.addHook('preValidation', options.body === 'optional' ? optionalJsonBody : requireJsonBody);
}
