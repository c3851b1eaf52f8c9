import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * The server-sent events of a provider's streamed answer, one by one as their bytes arrive.
 * Ending the iteration early (break, return, throw) stops reading `body`.
 *
 * @example
 * for await (const event of readServerSentEvents(response.body)) {
 *   if (event.data === '[DONE]') break;
 *   handle(event.event, JSON.parse(event.data));
 * }
 */
export async function* readServerSentEvents(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<EventSourceMessage> {
  const ready: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event) });
  const decoder = new TextDecoder();
  for await (const bytes of body) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    while (ready.length > 0) yield ready.shift() as EventSourceMessage;
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  while (ready.length > 0) yield ready.shift() as EventSourceMessage;
}
