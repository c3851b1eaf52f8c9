import type { IncomingMessage } from 'node:http';
import { parse } from 'node:querystring';
import { ApiError } from '../platform/errors.ts';
import { textProblem } from '../platform/storable-text.ts';

/**
 * The parameters oidc-provider will read, held to the text rule (platform/storable-text.ts)
 * before it sees them: it looks `client_id`, `code`, `refresh_token`, `device_code`, `token`,
 * `user_code` up in the store and keeps others in its records, and a NUL there fails on
 * PostgreSQL as an internal error. Parsed as the provider parses them (Koa's query and its form
 * body both use node:querystring). Answered as RFC 6749 §5.2 words a malformed request:
 * `invalid_request`, naming the parameter.
 *
 * @example
 * checkProviderParameters('/token', Buffer.from('refresh_token=a%00b'));
 * // ApiError 400 invalid_request: refresh_token must not contain NUL characters (U+0000)
 */
export function checkProviderParameters(
  url: string,
  form: Buffer | undefined,
): ApiError | undefined {
  const query = url.indexOf('?');
  return (
    (query === -1 ? undefined : firstProblem(parse(url.slice(query + 1)))) ??
    (form === undefined ? undefined : firstProblem(parse(form.toString('utf8'))))
  );
}

function firstProblem(parameters: Record<string, string | string[] | undefined>) {
  for (const [name, value] of Object.entries(parameters)) {
    for (const one of Array.isArray(value) ? value : [value ?? '']) {
      const problem = textProblem(one);
      if (problem !== undefined) return new ApiError(400, 'invalid_request', `${name} ${problem}`);
    }
  }
  return undefined;
}

/**
 * The request as the provider reads its body, once it has been read here to be checked: the
 * same bytes again. The provider reads a body through `readable`, `readableEncoding` and
 * `iterator()` of the request (its selective_body); everything else is the request itself.
 * (Handing it the parsed body instead works too, but makes every process print a warning.)
 */
export function withBodyAgain(request: IncomingMessage, body: Buffer): IncomingMessage {
  const again: Record<PropertyKey, unknown> = {
    readable: true,
    readableEncoding: null,
    iterator: async function* () {
      yield body;
    },
  };
  return new Proxy(request, {
    get: (target, key) => (Object.hasOwn(again, key) ? again[key] : Reflect.get(target, key)),
  });
}
