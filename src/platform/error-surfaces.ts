import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { formatBytes } from './byte-sizes.ts';
import { type Failure, failureOf } from './failure.ts';
import { closeAfterLinger } from './lingering-close.ts';

/** How one interface writes a failure: its body, and headers of its own beside the failure's. */
export type ErrorShape = (failure: Failure) => {
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
};

/** The memory and platform API's shape, and the shape of every path no other interface owns. */
export const apiErrorShape: ErrorShape = (failure) => ({
  body: { error: failure.message, ...failure.body },
});

/**
 * The one place that decides which interface a path belongs to, for errors raised where no
 * route's own handler runs: Node's HTTP parser (a malformed request line or header, headers
 * too large), Fastify before routing (a bad percent-encoding), and the app-wide handlers.
 */
export interface ErrorSurfaces {
  /** The shape of the interface that owns `path` (a request target, query allowed). */
  shapeOf(path: string): ErrorShape;
  /** Sends `failure` in the shape of the interface of the request's path: no-store, JSON. */
  send(request: FastifyRequest, reply: FastifyReply, failure: Failure): FastifyReply;
  /** Fastify's `frameworkErrors` option: errors raised before a route is found. */
  frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void;
  /** Fastify's `clientErrorHandler` option: requests Node's parser refused. */
  clientErrorHandler(error: ClientError, socket: Socket): void;
}

/**
 * What Node's `clientError` event passes: the parser's code, and in `rawPacket` the bytes it
 * was reading (a Buffer, whatever Fastify's types say).
 */
export type ClientError = Error & { readonly code?: string | undefined };

/**
 * @example
 * const surfaces = createErrorSurfaces({ '/v1': openAiErrorShape, '/oauth': oauthErrorShape });
 * Fastify({ frameworkErrors: surfaces.frameworkErrors, clientErrorHandler: surfaces.clientErrorHandler });
 */
export function createErrorSurfaces(byPrefix: Readonly<Record<string, ErrorShape>>): ErrorSurfaces {
  const prefixes = Object.entries(byPrefix);
  const shapeOf = (path: string): ErrorShape => {
    const end = path.search(/[?#]/);
    const pathname = end === -1 ? path : path.slice(0, end);
    for (const [prefix, shape] of prefixes) {
      if (pathname === prefix || pathname.startsWith(`${prefix}/`)) return shape;
    }
    return apiErrorShape;
  };

  const send = (request: FastifyRequest, reply: FastifyReply, failure: Failure) => {
    const shaped = shapeOf(request.url)(failure);
    return reply
      .code(failure.status)
      .headers({ ...failure.headers, ...shaped.headers })
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(shaped.body);
  };

  return {
    shapeOf,
    send,
    frameworkErrors(error, request, reply) {
      send(request, reply, failureOf(error, request));
    },
    clientErrorHandler(error, socket) {
      // A reset connection has no one to answer; a socket already answered (the parser fails
      // again on what follows) is closing.
      if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
      const failure = clientFailure(error);
      const packet = (error as { rawPacket?: unknown }).rawPacket;
      const shaped = shapeOf(requestTarget(Buffer.isBuffer(packet) ? packet : undefined))(failure);
      const body = JSON.stringify(shaped.body);
      const headers = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        'cache-control': 'no-store',
        connection: 'close',
        ...failure.headers,
        ...shaped.headers,
      };
      const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.write(
        `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}\r\n${head.join('')}\r\n${body}`,
      );
      closeAfterLinger(socket);
    },
  };
}

/** A request Node's HTTP parser refused: which status, and why, in words. */
function clientFailure(error: ClientError): Failure {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'request_timeout', message: 'the request did not arrive in time' };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      code: 'request_header_fields_too_large',
      message: `the request line and headers are too large: at most ${formatBytes(maxHeaderSize)} together`,
    };
  }
  if (error.code === 'HPE_INVALID_URL') {
    return {
      status: 400,
      code: 'malformed_url',
      message:
        'malformed URL: characters other than printable ASCII must be percent-encoded (RFC 3986)',
    };
  }
  if (error.code?.startsWith('HPE_INVALID_HEADER') || error.code === 'HPE_LF_EXPECTED') {
    return {
      status: 400,
      code: 'malformed_header',
      message: 'malformed header: a header value may not contain control characters',
    };
  }
  return { status: 400, code: 'malformed_request', message: 'malformed HTTP request' };
}

/**
 * The request target of the request line at the start of `packet`, as far as it arrived (a
 * target too long for the header limit is cut, but its path's start is there); `/` when there
 * is no request line to read.
 */
function requestTarget(packet: Buffer | undefined): string {
  const line = packet?.subarray(0, 2048).toString('latin1') ?? '';
  const target = /^[A-Z]+ +([^ \r\n]+)/.exec(line)?.[1] ?? '/';
  // The absolute form (`GET http://host/v1/models`): its path.
  return /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/[^ ]*)?$/i.exec(target)?.[1] ?? target;
}
