import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import { Agent, fetch, type Response as UndiciResponse } from 'undici';

/** One event of a change stream, as a client reads it. */
export interface StreamEvent {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: unknown;
}

export interface OpenedEventStream {
  readonly response: UndiciResponse;
  /**
   * The next event (comments are not events), waiting at most `timeoutMs`; undefined when the
   * stream ended first.
   */
  next(timeoutMs?: number): Promise<StreamEvent | undefined>;
  /** Events until one matches `until` (included), within `timeoutMs` in all. */
  take(until: (event: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent[]>;
  /** The raw text received so far, comments included. */
  readonly raw: () => string;
  close(): void;
}

/**
 * `GET /api/v1/memory/events` as a client opens it, read with eventsource-parser (the parser the
 * server's own provider streams use). A refusal is a response with no events: read `response`.
 * Each stream has a connection of its own, closed with it: a stream cut off by its client leaves
 * nothing behind in a shared pool (which may open a spare connection that the server, closing,
 * would wait a minute for).
 */
export async function openEventStream(
  baseUrl: string,
  who: { token: string; orgId: string },
  query = '',
  headers: Record<string, string> = {},
): Promise<OpenedEventStream> {
  const controller = new AbortController();
  const dispatcher = new Agent({ connections: 1 });
  const response = await fetch(`${baseUrl}/api/v1/memory/events${query}`, {
    headers: {
      authorization: `Bearer ${who.token}`,
      'x-organization-id': who.orgId,
      accept: 'text/event-stream',
      ...headers,
    },
    signal: controller.signal,
    dispatcher,
  });
  let text = '';
  const queue: StreamEvent[] = [];
  let ended = false;
  let notify = () => {};
  if (response.ok && response.body) {
    const decoded = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(
      new TransformStream<string, string>({
        transform(chunk, out) {
          text += chunk;
          out.enqueue(chunk);
        },
      }),
    );
    const events = decoded.pipeThrough(new EventSourceParserStream());
    void (async () => {
      try {
        for await (const message of events as unknown as AsyncIterable<EventSourceMessage>) {
          queue.push({ id: message.id, event: message.event, data: JSON.parse(message.data) });
          notify();
        }
      } catch {
        // Closed by the test, or cut by the server: the stream has ended either way.
      } finally {
        ended = true;
        notify();
      }
    })();
  } else {
    ended = true;
  }

  async function next(timeoutMs = 5_000): Promise<StreamEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0 && !ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${timeoutMs} ms; received: ${text}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        notify = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      notify = () => {};
    }
    return queue.shift();
  }

  return {
    response,
    next,
    async take(until, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      const taken: StreamEvent[] = [];
      for (;;) {
        const event = await next(Math.max(1, deadline - Date.now()));
        if (event === undefined) throw new Error(`the stream ended; received: ${text}`);
        taken.push(event);
        if (until(event)) return taken;
      }
    },
    raw: () => text,
    close: () => {
      controller.abort();
      void dispatcher.destroy();
    },
  };
}
