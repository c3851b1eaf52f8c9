import { createParser } from 'eventsource-parser';
import { Agent, request } from 'undici';
import type { ReceivedEvent } from './latency.ts';

/**
 * A change stream (`GET /api/v1/memory/events`) read as a client reads it, with
 * eventsource-parser, in the bench's own process: each `change` and `delete` event kept with the
 * moment it was parsed. It has a connection of its own, so no other request waits behind it.
 */
export interface StreamReader {
  /** The `change` and `delete` events so far, in the stream's order. */
  readonly events: readonly ReceivedEvent[];
  /** Memories a `change` event has been received of. */
  readonly changed: ReadonlySet<string>;
  /** What ended the stream before `close`, or the `error` event it sent; undefined while it runs. */
  failure(): string | undefined;
  /** Resolves once `done()` holds, checked at each event; rejects after `timeoutMs` or on a failure. */
  until(done: () => boolean, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

interface Data {
  readonly id?: unknown;
  readonly content?: unknown;
  readonly error?: unknown;
  readonly status?: unknown;
}

/** Opens the stream of the store `who` reads (from its start) and waits for its first `sync`. */
export async function openStreamReader(
  origin: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<StreamReader> {
  const dispatcher = new Agent({ connections: 1, bodyTimeout: 0, headersTimeout: timeoutMs });
  const response = await request(`${origin}/api/v1/memory/events`, {
    headers: { ...headers, accept: 'text/event-stream' },
    dispatcher,
  });
  if (response.statusCode !== 200) {
    const text = await response.body.text();
    await dispatcher.destroy();
    throw new Error(`GET /api/v1/memory/events: ${response.statusCode} ${text.slice(0, 300)}`);
  }
  const events: ReceivedEvent[] = [];
  const changed = new Set<string>();
  let synced = false;
  let failure: string | undefined;
  let closing = false;
  let check = () => {};
  const parser = createParser({
    onEvent(message) {
      const at = performance.now();
      const data = JSON.parse(message.data) as Data;
      if (message.event === 'change' || message.event === 'delete') {
        const id = String(data.id);
        const content = typeof data.content === 'string' ? data.content : undefined;
        events.push({ event: message.event, id, at, ...(content !== undefined && { content }) });
        if (message.event === 'change') changed.add(id);
      } else if (message.event === 'sync') {
        synced = true;
      } else if (message.event === 'error') {
        failure ??= `the stream sent error ${String(data.status)} ${String(data.error)}`;
      }
      check();
    },
  });
  const decoder = new TextDecoder();
  response.body.on('data', (chunk: Buffer) => parser.feed(decoder.decode(chunk, { stream: true })));
  const ended = (how: string) => () => {
    if (!closing) failure ??= `the stream ${how} before the bench closed it`;
    check();
  };
  response.body.once('end', ended('ended'));
  response.body.once('error', ended('broke'));

  const until = (done: () => boolean, limitMs: number) =>
    new Promise<void>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        check = () => {};
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`the stream: nothing awaited came within ${limitMs} ms`));
      }, limitMs);
      check = () => {
        if (failure !== undefined) {
          finish();
          reject(new Error(failure));
        } else if (done()) {
          finish();
          resolve();
        }
      };
      check();
    });

  const reader: StreamReader = {
    events,
    changed,
    failure: () => failure,
    until,
    async close() {
      closing = true;
      response.body.destroy();
      await dispatcher.destroy();
    },
  };
  try {
    await until(() => synced, timeoutMs);
  } catch (error) {
    await reader.close();
    throw error;
  }
  return reader;
}
