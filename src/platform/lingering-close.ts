import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * How long a connection stays open after an answer sent before its request was read to the
 * end, reading and dropping what the client still sends (the lingering close of Apache and
 * nginx). A socket closed with unread data resets the connection, and a reset can take the
 * answer with it before the client has read it.
 */
export const LINGER_MS = 5000;

/**
 * A 413 for a body over the limit, announced or streamed, goes out before the body has arrived
 * whole, and the client must be able to read it. Fastify marks it
 * `Connection: close`, and Node closes the socket as soon as it is written, resetting the
 * connection under a client still sending. Instead the answer goes out without it, the rest of
 * the body is read and dropped, and the connection is closed if the body has not ended
 * LINGER_MS after the answer.
 */
export function registerLingeringClose(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const { headers } = request.raw;
    const bodyOnItsWay =
      headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
    if (
      reply.statusCode === 413 &&
      bodyOnItsWay &&
      !request.raw.complete &&
      reply.getHeader('connection') === 'close'
    ) {
      reply.removeHeader('connection');
      reply.raw.once('finish', () => dropRestOfBody(request.raw));
    }
    done(null, payload);
  });
}

function dropRestOfBody(request: IncomingMessage): void {
  request.resume();
  if (request.complete) return;
  const socket = request.socket;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  request.once('end', () => clearTimeout(timer));
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Ends a connection whose request the HTTP parser refused, once the answer written to it is
 * out: what the client still sends is read and dropped for at most LINGER_MS.
 */
export function closeAfterLinger(socket: Socket): void {
  socket.end();
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
