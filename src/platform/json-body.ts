import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export const unsupportedMediaType = () =>
  new ApiError(415, 'unsupported_media_type', 'Content-Type must be application/json');

/**
 * A preValidation hook: 415 unless a POST, PUT or PATCH says it sends JSON. A body-less request
 * never reaches Fastify's content-type parser, so the parser alone would let it through.
 */
export function requireJsonBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const type = request.headers['content-type'];
  const json = type !== undefined && /^application\/json\s*(;|$)/i.test(type);
  done(json || !WITH_BODY.has(request.method) ? undefined : unsupportedMediaType());
}
