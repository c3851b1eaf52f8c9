import type { FastifyReply } from 'fastify';

/**
 * A signal that aborts the provider's call when the caller disconnects before its answer is
 * complete: nobody would read the rest, and the provider would bill for it.
 */
export function abortWhenGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
