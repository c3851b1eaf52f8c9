import { type OpenAiError, serverError } from '../openai-errors.ts';
import {
  type ChatChunk,
  type ChatUsage,
  type FinishReason,
  type ToolCallDelta,
  UpstreamStreamError,
} from '../provider.ts';
import {
  buildResponse,
  outcomeOf,
  outputText,
  type ResponseIds,
  type ResponseState,
  toUsage,
} from './responses.mapping.ts';
import type {
  ItemStatus,
  OutputContent,
  OutputItem,
  ResponseObject,
  ResponsesRequest,
} from './responses.schemas.ts';

interface InItem {
  item_id: string;
  output_index: number;
}
interface InPart extends InItem {
  content_index: number;
}

/** A streamed event of the Responses API, before its `sequence_number`. */
type ResponseEventBody =
  | {
      type:
        | 'response.created'
        | 'response.in_progress'
        | 'response.completed'
        | 'response.incomplete'
        | 'response.failed';
      response: ResponseObject;
    }
  | {
      type: 'response.output_item.added' | 'response.output_item.done';
      output_index: number;
      item: OutputItem;
    }
  | ({
      type: 'response.content_part.added' | 'response.content_part.done';
      part: OutputContent;
    } & InPart)
  | ({ type: 'response.output_text.delta'; delta: string; logprobs: [] } & InPart)
  | ({ type: 'response.output_text.done'; text: string; logprobs: [] } & InPart)
  | ({ type: 'response.refusal.delta'; delta: string } & InPart)
  | ({ type: 'response.refusal.done'; refusal: string } & InPart)
  | ({ type: 'response.function_call_arguments.delta'; delta: string } & InItem)
  | ({ type: 'response.function_call_arguments.done'; arguments: string } & InItem)
  | {
      type: 'error';
      /** The reference gives the error's fields here; OpenAI sends them in `error` too. */
      code: string | null;
      message: string;
      param: string | null;
      error: OpenAiError;
    };

/** Numbered from 0 in the order sent, so that a client can tell a gap or a replay. */
export type ResponseStreamEvent = ResponseEventBody & { sequence_number: number };

/**
 * A chat completion stream as the Responses API's event stream: `response.created` and
 * `response.in_progress`, then each output item (a message, or a function call per tool call)
 * from `output_item.added` through its deltas to `output_item.done`, then `response.completed`
 * (or `response.incomplete` when the answer was cut short) carrying the whole Response, with the
 * usage of the stream's usage chunk. Items come one after another, in the order the model
 * began them, so `output_index` is their place in the final `output`.
 *
 * When `chunks` throws, the stream ends as OpenAI ends a failed one: an `error` event (which the
 * official SDKs throw) and then `response.failed`. An UpstreamStreamError ends the events there;
 * any other error, such as a provider breaking the chunk contract, is thrown on after them so
 * the caller can log it.
 *
 * @example
 * for await (const event of toResponseEvents(chunks, body, newResponseIds())) {
 *   reply.raw.write(formatResponseEvent(event));
 * }
 */
export async function* toResponseEvents(
  chunks: AsyncIterable<ChatChunk>,
  body: ResponsesRequest,
  ids: ResponseIds,
): AsyncGenerator<ResponseStreamEvent, void, undefined> {
  const events = new ResponseEvents(body, ids);
  try {
    for await (const chunk of chunks) yield* events.chunk(chunk);
    yield* events.finish();
  } catch (error) {
    yield* events.fail(error);
    if (!(error instanceof UpstreamStreamError)) throw error;
  }
}

interface OpenMessage {
  readonly kind: 'message';
  readonly id: string;
  readonly index: number;
  readonly parts: OutputContent[];
  /** The part being streamed, at `content_index` `parts.length`. */
  part?: { readonly type: OutputContent['type']; text: string } | undefined;
}

interface OpenCall {
  readonly kind: 'function_call';
  readonly id: string;
  readonly index: number;
  readonly callId: string;
  readonly name: string;
  arguments: string;
}

/** The state of one response's stream; each method yields the events a step produces. */
class ResponseEvents {
  readonly #body: ResponsesRequest;
  readonly #ids: ResponseIds;
  #sequence = 0;
  #model: string | undefined;
  /** Closed items, at their `output_index`. */
  readonly #done: OutputItem[] = [];
  /** At most one item is open: it is closed before the next one begins. */
  #open: OpenMessage | OpenCall | undefined;
  /** The calls begun so far, by their index in the chunks' `tool_calls`. */
  readonly #calls = new Map<number, OpenCall>();
  #finish: FinishReason | undefined;
  #usage: ChatUsage | undefined;

  constructor(body: ResponsesRequest, ids: ResponseIds) {
    this.#body = body;
    this.#ids = ids;
  }

  *chunk(chunk: ChatChunk): Generator<ResponseStreamEvent> {
    yield* this.#start(chunk.model);
    if (chunk.usage) this.#usage = chunk.usage;
    // A response has one answer: the request never asks for more than one choice.
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (!choice) return;
    const { delta } = choice;
    if (delta.content) yield* this.#text('output_text', delta.content);
    if (delta.refusal) yield* this.#text('refusal', delta.refusal);
    for (const call of delta.tool_calls ?? []) yield* this.#toolCall(call);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
  }

  *finish(): Generator<ResponseStreamEvent> {
    if (this.#finish === undefined) {
      throw new Error('The chat stream ended without a finish reason.');
    }
    const outcome = outcomeOf(this.#finish);
    yield* this.#start(this.#body.model);
    // Every response has an output: a model that said nothing said an empty message.
    if (this.#done.length === 0 && !this.#open) {
      yield* this.#openPart(yield* this.#openMessage(), 'output_text');
    }
    yield* this.#close(outcome.status === 'incomplete' ? 'incomplete' : 'completed');
    yield this.#event({
      type: outcome.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
      response: this.#response({ ...outcome, output: [...this.#done] }),
    });
  }

  *fail(error: unknown): Generator<ResponseStreamEvent> {
    yield* this.#start(this.#body.model);
    const wire = error instanceof UpstreamStreamError ? error.error : serverError().body.error;
    yield this.#event({
      type: 'error',
      code: wire.code,
      message: wire.message,
      param: wire.param,
      error: wire,
    });
    const open = this.#open ? [this.#snapshot(this.#open, 'incomplete')] : [];
    yield this.#event({
      type: 'response.failed',
      response: this.#response({
        status: 'failed',
        error: { code: wire.code ?? 'server_error', message: wire.message },
        incomplete_details: null,
        output: [...this.#done, ...open],
      }),
    });
  }

  *#start(model: string): Generator<ResponseStreamEvent> {
    if (this.#model !== undefined) return;
    this.#model = model;
    const response = this.#response({
      status: 'in_progress',
      incomplete_details: null,
      output: [],
    });
    yield this.#event({ type: 'response.created', response });
    yield this.#event({ type: 'response.in_progress', response });
  }

  *#text(type: OutputContent['type'], delta: string): Generator<ResponseStreamEvent> {
    const message = this.#open?.kind === 'message' ? this.#open : yield* this.#openMessage();
    if (message.part && message.part.type !== type) yield* this.#closePart(message);
    const part = message.part ?? (yield* this.#openPart(message, type));
    part.text += delta;
    const at = {
      item_id: message.id,
      output_index: message.index,
      content_index: message.parts.length,
    };
    yield this.#event(
      type === 'output_text'
        ? { type: 'response.output_text.delta', ...at, delta, logprobs: [] }
        : { type: 'response.refusal.delta', ...at, delta },
    );
  }

  *#toolCall(delta: ToolCallDelta): Generator<ResponseStreamEvent> {
    let call = this.#calls.get(delta.index);
    if (!call) {
      const name = delta.function?.name;
      if (!delta.id || !name) {
        throw new Error(`The first delta of tool call ${delta.index} has no id or no name.`);
      }
      yield* this.#close('completed');
      call = {
        kind: 'function_call',
        id: this.#ids.item('fc'),
        index: this.#done.length,
        callId: delta.id,
        name,
        arguments: '',
      };
      this.#calls.set(delta.index, call);
      this.#open = call;
      yield this.#event({
        type: 'response.output_item.added',
        output_index: call.index,
        item: this.#snapshot(call, 'in_progress'),
      });
    } else if (call !== this.#open) {
      // Its `output_item.done` is out: the call can no longer grow.
      throw new Error(`Tool call ${delta.index} continued after the next item began.`);
    }
    const piece = delta.function?.arguments;
    if (!piece) return;
    call.arguments += piece;
    yield this.#event({
      type: 'response.function_call_arguments.delta',
      item_id: call.id,
      output_index: call.index,
      delta: piece,
    });
  }

  *#openMessage(): Generator<ResponseStreamEvent, OpenMessage> {
    yield* this.#close('completed');
    const message: OpenMessage = {
      kind: 'message',
      id: this.#ids.item('msg'),
      index: this.#done.length,
      parts: [],
    };
    this.#open = message;
    yield this.#event({
      type: 'response.output_item.added',
      output_index: message.index,
      item: this.#snapshot(message, 'in_progress'),
    });
    return message;
  }

  *#openPart(
    message: OpenMessage,
    type: OutputContent['type'],
  ): Generator<ResponseStreamEvent, NonNullable<OpenMessage['part']>> {
    const part = { type, text: '' };
    message.part = part;
    yield this.#event({
      type: 'response.content_part.added',
      item_id: message.id,
      output_index: message.index,
      content_index: message.parts.length,
      part: contentOf(part),
    });
    return part;
  }

  *#closePart(message: OpenMessage): Generator<ResponseStreamEvent> {
    const { part } = message;
    if (!part) return;
    const at = {
      item_id: message.id,
      output_index: message.index,
      content_index: message.parts.length,
    };
    yield this.#event(
      part.type === 'output_text'
        ? { type: 'response.output_text.done', ...at, text: part.text, logprobs: [] }
        : { type: 'response.refusal.done', ...at, refusal: part.text },
    );
    message.parts.push(contentOf(part));
    message.part = undefined;
    yield this.#event({ type: 'response.content_part.done', ...at, part: contentOf(part) });
  }

  /** Closes the open item, if any, with `status`. */
  *#close(status: ItemStatus): Generator<ResponseStreamEvent> {
    const open = this.#open;
    if (!open) return;
    if (open.kind === 'message') {
      yield* this.#closePart(open);
    } else {
      yield this.#event({
        type: 'response.function_call_arguments.done',
        item_id: open.id,
        output_index: open.index,
        arguments: open.arguments,
      });
    }
    const item = this.#snapshot(open, status);
    this.#done.push(item);
    this.#open = undefined;
    yield this.#event({ type: 'response.output_item.done', output_index: open.index, item });
  }

  /**
   * The item as it stands, as a new object: an event already sent must not change with later
   * deltas. Closed parts and closed items are never changed, so they are shared.
   */
  #snapshot(open: OpenMessage | OpenCall, status: ItemStatus): OutputItem {
    if (open.kind === 'function_call') {
      return {
        id: open.id,
        type: 'function_call',
        status,
        call_id: open.callId,
        name: open.name,
        arguments: open.arguments,
      };
    }
    return {
      id: open.id,
      type: 'message',
      status,
      role: 'assistant',
      content: [...open.parts, ...(open.part ? [contentOf(open.part)] : [])],
    };
  }

  #response(state: Omit<ResponseState, 'model' | 'usage'>): ResponseObject {
    return buildResponse(this.#body, this.#ids, {
      ...state,
      model: this.#model ?? this.#body.model,
      usage: this.#usage ? toUsage(this.#usage) : null,
    });
  }

  #event(body: ResponseEventBody): ResponseStreamEvent {
    return { ...body, sequence_number: this.#sequence++ };
  }
}

function contentOf(part: NonNullable<OpenMessage['part']>): OutputContent {
  return part.type === 'output_text'
    ? outputText(part.text)
    : { type: 'refusal', refusal: part.text };
}
