import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';
import { MEMORY_MODES } from '../keys/index.ts';
import {
  MEMORY_HEADER,
  PROJECT_HEADER,
  RECALLED_HEADER,
  USER_HEADER,
} from './memory/memory-switch.ts';

/**
 * How `/v1` appears in /openapi.json: its tag, its security, and the headers and error answers
 * its operations share. Each route states its own operation beside it (`documentedOnly`).
 */

/** The tag of every `/v1` operation. */
export const GATEWAY_TAG = 'Chat gateway (/v1)';

/** An API key as a bearer token: the `apiKey` scheme of the document (platform/openapi.ts). */
export const API_KEY_SECURITY = [{ apiKey: [] }];

/**
 * The route options that put `operation` in /openapi.json, and nowhere else.
 *
 * `/v1` checks its bodies by hand (chat.validation.ts) so that a refusal names the parameter in
 * OpenAI's words and codes, and sends its answers as built. A `schema` on the route would have
 * Fastify validate the body with the platform's validator (its `{"error"}` messages, its text
 * rule) and serialize the answers with fast-json-stringify, which drops what a schema does not
 * name. A route-level `swaggerTransform` hands the schema to the document generator only: nothing
 * is compiled, nothing on the request's path changes, and the platform's document transform
 * (openapi-text-rule.ts), which states a text rule `/v1` does not apply, is left out. The schemas
 * are the very ones the checks use; the generator gets a copy, so it can never alter them.
 *
 * @example
 * app.post('/chat/completions', { config: documentedOnly({ body: ChatRequestBody, … }) }, handler);
 */
export function documentedOnly(
  operation: FastifySchema,
  path?: string,
): { swaggerTransform: SwaggerTransform } {
  return {
    swaggerTransform: ({ url }) => ({ schema: structuredClone(operation), url: path ?? url }),
  };
}

/** What the header says, as a response header of the document: a string. */
const header = (description: string) => ({ type: 'string', description });

/** On every answer, success or error, as OpenAI's API sends it. */
export const REQUEST_ID_HEADER = {
  'x-request-id': header('This answer’s id, `req_` and 32 hex digits, as OpenAI’s API gives it'),
};

/** On every answer of a call sent to a model: who served it, and why that one. */
export const ROUTING_HEADERS = {
  'x-mnemo-model': header('The catalog id of the model that answered (or failed last)'),
  'x-mnemo-provider': header('The provider of that model, as the catalog names it'),
  'x-mnemo-route': header(
    '`requested by name`, or for the router (`auto`) the model it chose and why, then each model it passed over and why',
  ),
};

/** On the answer of a call that used memory. */
export const RECALLED_MEMORIES_HEADER = {
  [RECALLED_HEADER]: header(
    `With memory on (\`${MEMORY_HEADER}\` or the key’s setting): the ids of the memories recalled into the prompt, comma-separated; empty when none was`,
  ),
};

/** What a call may ask of memory (docs/memory-chat.md); none is read when memory is off. */
export const MemoryHeaders = Type.Object({
  [MEMORY_HEADER]: Type.Optional(
    Type.String({
      description: `What the call does with the key owner’s memories: ${MEMORY_MODES.join(', ')} (any case), \`read\` recalling them into the prompt, \`read-write\` also learning from the conversation. Without it, the key’s \`memory\` setting. Never more than the key’s \`memoryAccess\` (403 \`memory_not_allowed\`); another value is 400 \`invalid_memory_mode\``,
    }),
  ),
  [PROJECT_HEADER]: Type.Optional(
    Type.String({
      description:
        'A project of the organization whose pool is recalled beside the owner’s memories (and learned into); empty: 400 `invalid_project`',
    }),
  ),
  [USER_HEADER]: Type.Optional(
    Type.String({
      description: `Whose memories instead of the key owner’s: an end user’s id in your app or in mnemo, or a member’s id; empty: 400 \`invalid_user\`; with \`${PROJECT_HEADER}\`: 400 \`user_with_project\``,
    }),
  ),
});

/** OpenAI's error object: what every `/v1` error answers, as `{"error": {…}}`. */
export const OpenAiErrorObject = Type.Object(
  {
    message: Type.String({ description: 'What went wrong, for people' }),
    type: Type.String({
      description:
        '`invalid_request_error`, `rate_limit_error` or `api_error`; a provider’s error keeps its own',
    }),
    param: Type.Union([Type.String(), Type.Null()], {
      description: 'The parameter at fault, as a path into the body (`messages[1].role`)',
    }),
    code: Type.Union([Type.String(), Type.Null()], {
      description: 'A stable code to branch on (`invalid_api_key`, `model_not_found`, …)',
    }),
  },
  { $id: 'OpenAiError', description: 'An error, in the shape of OpenAI’s API' },
);

const SHOULD_RETRY_HEADER = {
  'x-should-retry': header(
    '`true` on 408, 429 and 5xx (except a provider refusing mnemo’s own key), `false` otherwise: the official SDKs follow it',
  ),
};

const RETRY_AFTER_HEADERS = {
  'retry-after': header('Seconds to wait, when known'),
  'retry-after-ms': header('Milliseconds to wait, when the provider said'),
};

/**
 * An error answer: OpenAI's body, with the headers every `/v1` error has and `headers`. Stated
 * as the body's schema (not under `content`), so that the document holds OpenAiError once.
 */
export const errorAnswer = (description: string, headers: Record<string, object> = {}) =>
  Type.Object(
    { error: OpenAiErrorObject },
    { description, headers: { ...REQUEST_ID_HEADER, ...SHOULD_RETRY_HEADER, ...headers } },
  );

/** What one operation may answer: a description per status. */
export type ErrorAnswers = Record<string, ReturnType<typeof errorAnswer>>;

/**
 * The errors every `/v1` operation may answer whatever it does: a refused key (first of all), a
 * store that cannot check the key, and any other failure, of mnemo's or of a provider's.
 */
export const COMMON_ERRORS: ErrorAnswers = {
  401: errorAnswer(
    '`invalid_api_key`: no key, a malformed, unknown, revoked or expired one, a platform credential instead of one, or a key whose user is suspended, banned or no longer a member; the message says which',
    {
      'www-authenticate': header(
        'RFC 6750 challenge: Bearer realm="mnemo" when no key was sent; with error="invalid_token" and error_description (the same message) when one was refused',
      ),
    },
  ),
  503: errorAnswer(
    '`service_unavailable`: mnemo’s store cannot be reached to check the key (`retry-after: 2`); for a call sent to a model, also `model_not_available` (every model of the router that could serve it is failing) or the provider’s own 503',
    RETRY_AFTER_HEADERS,
  ),
  '4XX': errorAnswer(
    'Another refusal: a body that is no JSON (400 `malformed_json`), over 32 MiB (413 `request_too_large`) or of another `Content-Type` (415 `unsupported_media_type`); for a call sent to a model, a provider’s own status, passed on',
  ),
  '5XX': errorAnswer(
    'A failure of mnemo’s own (500, `api_error`), or a provider’s own status, passed on',
  ),
};

/**
 * The errors of a call that a model answers (chat completions, responses, compaction), beyond
 * COMMON_ERRORS; `refused` is the operation's own 400.
 */
export function modelCallErrors(refused: string): ErrorAnswers {
  return {
    ...COMMON_ERRORS,
    400: errorAnswer(refused, ROUTING_HEADERS),
    404: errorAnswer(
      '`model_not_found`: no model of the catalog has this id (with none configured, the message says how to configure one)',
    ),
    413: errorAnswer('`request_too_large`: the body is over 32 MiB'),
    415: errorAnswer('`unsupported_media_type`: a `Content-Type` other than JSON'),
    429: errorAnswer(
      'The provider’s rate limit, passed on (`rate_limit_exceeded`); after the router tried every model that could serve the request',
      { ...ROUTING_HEADERS, ...RETRY_AFTER_HEADERS },
    ),
    502: errorAnswer(
      '`provider_unreachable`; `provider_auth_failed`: the provider refused mnemo’s own key for it (`x-should-retry: false`, never the caller’s 401); or the provider’s own 502',
      ROUTING_HEADERS,
    ),
    503: errorAnswer(
      '`model_not_available`: every model of the router that could serve the request is failing (`retry-after`); `service_unavailable`: mnemo’s store cannot be reached to check the key (`retry-after: 2`); or the provider’s own 503',
      { ...ROUTING_HEADERS, ...RETRY_AFTER_HEADERS },
    ),
    504: errorAnswer(
      '`provider_timeout`: the provider did not start answering within MNEMO_GATEWAY_TIMEOUT_SECONDS (300 by default)',
      ROUTING_HEADERS,
    ),
  };
}

/** The errors of a call that may use memory, beyond modelCallErrors. */
export function memoryCallErrors(refused: string): ErrorAnswers {
  const errors = modelCallErrors(refused);
  return {
    ...errors,
    403: errorAnswer(
      `\`memory_not_allowed\`: memory beyond the key’s \`memoryAccess\`; or the key owner may not read (for \`read-write\`, edit) the project of \`${PROJECT_HEADER}\`, or act for the user of \`${USER_HEADER}\``,
    ),
    404: errorAnswer(
      `\`model_not_found\`: no model of the catalog has this id (with none configured, the message says how to configure one); with memory on, also a project of \`${PROJECT_HEADER}\` not in the organization, or memory not enabled for it`,
    ),
  };
}

/** Said of every operation: the other methods of its path. */
export const otherMethods = (allowed: string) =>
  `Any other method on this path: 405 \`method_not_allowed\`, with \`Allow: ${allowed}\`.`;

/** A 200 answered whole as JSON, or streamed as server-sent events when `stream` is true. */
export function jsonOrEventStream(
  description: string,
  json: object,
  events: string,
  headers: Record<string, object>,
) {
  return {
    description,
    headers: {
      ...REQUEST_ID_HEADER,
      ...headers,
      'x-accel-buffering': header('`no`, on a stream: a buffering proxy passes each event on'),
    },
    content: {
      'application/json': { schema: json },
      'text/event-stream': { schema: { type: 'string', description: events } },
    },
  };
}
