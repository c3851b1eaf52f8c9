import { once } from 'node:events';
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The HTTP mechanics every provider simulator shares: a server on a free loopback port, the
 * request body read whole, JSON answers with their length, and event streams written at a
 * pace. What goes over the wire (paths, keys, error bodies, event shapes, request id headers)
 * is each simulator's own.
 */
export interface LoopbackServer {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  readonly origin: string;
  /** TCP connections accepted so far: a client that keeps its connections alive opens few. */
  connections(): number;
  /** Stops listening and destroys live connections, hung ones included. */
  close(): Promise<void>;
}

/**
 * Serves `handle` on 127.0.0.1 at a port the system picks. A handler that throws (a client gone
 * mid-stream, say) has its response destroyed rather than answered, as a failing upstream would.
 *
 * @example
 * const server = await startLoopbackServer(async (req, res) => {
 *   await readBody(req);
 *   sendJson(res, 200, { ok: true }, { 'x-request-id': 'req_1' });
 * });
 * await fetch(`${server.origin}/anything`, { method: 'POST', body: '{}' });
 * await server.close();
 */
export async function startLoopbackServer(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<LoopbackServer> {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  let accepted = 0;
  server.on('connection', () => {
    accepted += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    async close() {
      // server.close alone waits for every open connection, a scripted hang would never end.
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** The body as a JSON object, or undefined when it is not JSON or is another kind of value. */
export function parseJsonObject(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A whole JSON answer with its `content-length`. `headers` come after the defaults and win, so a
 * provider's own `content-type` or request id header, and a test's scripted headers, go there.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * The 200 head of a stream, flushed at once so the client sees the answer begin before the
 * first event. `headers` win over the server-sent events defaults.
 */
export function openEventStream(res: ServerResponse, headers: OutgoingHttpHeaders = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...headers,
  });
  res.flushHeaders();
}

/** Writes one piece of a stream, then waits; throws once the client has gone. */
export type PacedWrite = (res: ServerResponse, text: string) => Promise<void>;

/**
 * A writer that pauses `delayMs` after each piece, so that a client reads a stream as it comes
 * and a test can leave in the middle of one. Throwing once the client has gone ends the
 * handler, which the server then answers by destroying the response.
 */
export function pacedWriter(delayMs: number): PacedWrite {
  return async (res, text) => {
    if (res.destroyed) throw new Error('client went away');
    res.write(text);
    if (delayMs > 0) await sleep(delayMs);
  };
}
