import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { MemoryItem } from './types.ts';

/**
 * One event of a store's change stream (`GET /api/v1/memory/events`). Every event's `cursor` is
 * one the list takes as `since`, and the stream as `lastEventId`: what came after that event.
 */
export type MemoryEvent =
  /** A memory added or changed: upsert it. */
  | { readonly type: 'change'; readonly memory: MemoryItem; readonly cursor: string }
  /** A memory deleted: remove it. */
  | { readonly type: 'delete'; readonly id: string; readonly cursor: string }
  /** Everything up to `cursor` has been sent: a copy that applied the events so far is current. */
  | { readonly type: 'sync'; readonly cursor: string }
  /**
   * The caller may no longer read the store (suspended, removed, the memory switched off, the
   * credential expired): the stream ends after it, and opening it again gets the refusal.
   */
  | {
      readonly type: 'error';
      readonly error: string;
      readonly status: number;
      readonly cursor: string;
    };

/** The events of a stream's body, parsed as they arrive; stopping early cancels the body. */
export async function* readMemoryEvents(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
): AsyncGenerator<MemoryEvent> {
  const messages = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  const reader = messages.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const event = toEvent(value.event, value.id ?? '', JSON.parse(value.data) as unknown);
      if (event) yield event;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** An event of the kinds this client knows; a kind added later is passed over. */
function toEvent(type: string | undefined, cursor: string, data: unknown): MemoryEvent | undefined {
  const body = data as Record<string, unknown>;
  switch (type) {
    case 'change':
      return { type, memory: data as MemoryItem, cursor };
    case 'delete':
      return { type, id: String(body.id), cursor };
    case 'sync':
      return { type, cursor };
    case 'error':
      return { type, error: String(body.error), status: Number(body.status), cursor };
    default:
      return undefined;
  }
}
