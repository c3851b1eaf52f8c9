import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { JsonText } from './json-text.ts';

/*
 * Bodies sent as they are, not serialized. A route's response schema types `reply.send` as the
 * object the schema describes; these take the reply untyped, so that what is already JSON, or a
 * stream whose every line or event the schema documents, is sent without a cast.
 */

/** Sends `body` as JSON: a string with a JSON type goes out as it is, not serialized again. */
export function sendJsonText<T>(reply: FastifyReply, body: JsonText<T>): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

/**
 * Sends `body` as it is read, with `contentType` (JSON Lines, server-sent events...) and then
 * `headers`, if any.
 */
export function sendStream(
  reply: FastifyReply,
  contentType: string,
  body: Readable,
  headers: Readonly<Record<string, string>> = {},
): FastifyReply {
  return reply.type(contentType).headers(headers).send(body);
}
