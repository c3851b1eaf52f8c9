import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';

/**
 * Graceful shutdown: once `app.close()` starts, requests in flight finish and answer with
 * `Connection: close` (a kept-alive socket would otherwise hold the close open until its idle
 * timeout), and new requests get 503 in the interface's own error shape. A connection on which
 * the client has sent nothing at all (a client's pool opens them ahead, or keeps a spare after
 * it cut a stream) is closed: the server's close ends idle connections, but takes one that never
 * began a request for busy until its headers time out, a minute later.
 */
export function registerDrain(app: FastifyInstance): void {
  let closing = false;
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', async () => {
    closing = true;
    // After this hook the server stops accepting; then the connections still silent go.
    setImmediate(() => {
      for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
    });
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
