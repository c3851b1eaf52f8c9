import { randomBytes } from 'node:crypto';
import type { GeminiFunctionCall } from './gemini.types.ts';

/**
 * Gemini names no function call, so the OpenAI side needs ids of its own; and a thinking model
 * signs its calls (`thoughtSignature`), a signature it wants back, on the same call, when the
 * conversation comes again (Gemini 3 refuses the request without it). OpenAI's tool call has
 * no room for it but its id, which every client sends back verbatim in the assistant message
 * and the tool results, so the signature rides there: `<id>__thought__<signature>`. The
 * separator is the one other OpenAI-to-Gemini gateways use, so ids they minted read the same.
 */
const SEPARATOR = '__thought__';

/** A signature is base64 bytes; anything else after the separator is someone else's id. */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * The OpenAI id of a function call: the call's own `id` when the model set one, else `call_`
 * and 24 random hex digits; with the part's signature appended when it has one.
 *
 * @example
 * toolCallIdOf({ name: 'get_weather', args: {} }, 'CiQB…'); // 'call_3f2a…__thought__CiQB…'
 */
export function toolCallIdOf(call: GeminiFunctionCall, thoughtSignature?: string): string {
  const id = call.id ?? `call_${randomBytes(12).toString('hex')}`;
  return thoughtSignature === undefined ? id : `${id}${SEPARATOR}${thoughtSignature}`;
}

/** The signature a tool call id carries, if it carries one. */
export function thoughtSignatureOf(toolCallId: string): string | undefined {
  const at = toolCallId.indexOf(SEPARATOR);
  if (at < 0) return undefined;
  const signature = toolCallId.slice(at + SEPARATOR.length);
  return BASE64.test(signature) ? signature : undefined;
}
