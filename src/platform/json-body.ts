import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

/** The methods whose requests carry a body; any other request's body is ignored when empty. */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * How deep objects and arrays may nest in a JSON body. JSON Schemas in tool definitions nest
 * deeply, but not this deep; what goes deeper would overflow the stack of the code that walks
 * it (JSON.stringify on the way to a provider, schema checks).
 */
export const MAX_JSON_DEPTH = 100;

export const unsupportedMediaType = () =>
  new ApiError(415, 'unsupported_media_type', 'Content-Type must be application/json');

const jsonTooDeep = () =>
  new ApiError(
    400,
    'json_too_deep',
    `JSON nesting is too deep: at most ${MAX_JSON_DEPTH} levels of objects and arrays`,
  );

/**
 * JSON bodies for every route: Fastify's parser (with its prototype-poisoning checks), behind
 * two rules of the door. A request whose method takes no body (DELETE, …) and sends none is
 * not parsed, whatever its Content-Type says: a client library that sets the header on every
 * request must not get `400 the body is empty` for a DELETE. And nesting deeper than
 * MAX_JSON_DEPTH is refused before parsing, by a scan that uses no recursion itself.
 */
export function registerJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text === '' && !WITH_BODY.has(request.method)) return done(null, undefined);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return done(jsonTooDeep(), undefined);
    parse(request, text, done);
  });
  // Fastify picks a parser by the Content-Type of every request whose method may carry a body,
  // before any route sees it (415 for a type it has no parser for): without the header, a
  // request with nothing to parse goes straight on.
  app.addHook('onRequest', (request, _reply, done) => {
    const headers = request.raw.headers;
    if (
      headers['content-type'] !== undefined &&
      !WITH_BODY.has(request.method) &&
      headers['transfer-encoding'] === undefined &&
      (headers['content-length'] === undefined || headers['content-length'] === '0')
    ) {
      delete headers['content-type'];
    }
    done();
  });
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether objects and arrays in `text` nest deeper than `max`, counting brackets outside
 * strings in one pass (strings are skipped whole, escapes included). Malformed JSON is left for
 * the parser to refuse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  // Nesting deeper than `max` takes more than `max` characters.
  if (text.length <= max) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i === -1) return false;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}

/** The index of the quote that closes the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

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
  done(isJson(type) || !WITH_BODY.has(request.method) ? undefined : unsupportedMediaType());
}

/**
 * A preValidation hook for a route whose body is optional (a PUT that may send nothing): 415
 * when it sends one that does not say it is JSON. Fastify itself refuses a body without any
 * Content-Type (415), so a request without the header has none, and is validated as `{}`.
 */
export function optionalJsonBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const type = request.headers['content-type'];
  if (type !== undefined && !isJson(type)) {
    done(unsupportedMediaType());
    return;
  }
  if (request.body === undefined && WITH_BODY.has(request.method)) request.body = {};
  done();
}

const isJson = (type: string | undefined) =>
  type !== undefined && /^application\/json\s*(;|$)/i.test(type);
