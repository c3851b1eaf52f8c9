import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * A server-sent event stream to the client, written by hand: each event goes out as its own
 * write the moment it is ready (the socket has no Nagle delay), and a slow reader holds the
 * writer back instead of piling events up in memory.
 *
 * @example
 * const events = openEventStream(reply, routeHeaders);
 * if (!(await events.send(`data: ${JSON.stringify(chunk)}\n\n`))) return; // the client left
 * events.end();
 */
export interface EventStream {
  /** Resolves false when the client has gone, and nothing more should be sent. */
  send(text: string): Promise<boolean>;
  end(): void;
}

export function openEventStream(
  reply: FastifyReply,
  headers: Readonly<Record<string, string>>,
): EventStream {
  // The answer leaves Fastify's hands here, so the headers it holds are written along.
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // Tells buffering proxies (nginx) to pass each event on at once.
    'x-accel-buffering': 'no',
  });
  const gone = () => res.destroyed || res.writableEnded;
  return {
    async send(text) {
      if (gone()) return false;
      if (res.write(text)) return true;
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done).off('close', done);
          resolve();
        };
        res.on('drain', done).on('close', done);
      });
      return !gone();
    },
    end() {
      if (!gone()) res.end();
    },
  };
}
