import type { ResponseStreamEvent } from './responses.stream.ts';

/**
 * One Responses event as server-sent event text. The event name repeats the payload's `type`,
 * as OpenAI sends it: clients dispatch on either, and the official SDKs throw on `event: error`.
 * The stream has no `[DONE]` sentinel; it ends after `response.completed`, `response.incomplete`
 * or `response.failed`.
 *
 * @example
 * reply.raw.write(formatResponseEvent(event));
 * // event: response.output_text.delta
 * // data: {"type":"response.output_text.delta","sequence_number":4,…}
 */
export function formatResponseEvent(event: ResponseStreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
