import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';

/**
 * Graceful shutdown: once `app.close()` starts, requests in flight finish and answer with
 * `Connection: close` (a kept-alive socket would otherwise hold the close open until its idle
 * timeout), and new requests get 503 in the interface's own error shape.
 */
export function registerDrain(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) {
      throw new ApiError(503, 'shutting_down', 'server is shutting down', {
        headers: { 'retry-after': '1' },
      });
    }
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}
