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
  // Callback hooks: they run on every request and have nothing to await.
  app.addHook('onRequest', (_request, _reply, done) => {
    if (!closing) return done();
    done(
      new ApiError(503, 'shutting_down', 'server is shutting down', {
        headers: { 'retry-after': '1' },
      }),
    );
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
