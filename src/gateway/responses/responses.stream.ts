import type { ReasoningDetail } from '../chat.schemas.ts';
import { type OpenAiError, serverError } from '../openai-errors.ts';
import {
  type ChatChunk,
  type ChatUsage,
  type FinishReason,
  type ToolCallDelta,
  UpstreamStreamError,
} from '../provider.ts';
import type { Sealer } from '../sealing.ts';
import {
  buildResponse,
  outcomeOf,
  outputText,
  type ResponseIds,
  type ResponseState,
  reasoningItem,
  summaryAsked,
  toUsage,
} from './responses.mapping.ts';
import type {
  ItemStatus,
  OutputContent,
  OutputItem,
  ReasoningText,
  ResponseObject,
  ResponsesRequest,
  SummaryText,
} from './responses.schemas.ts';

interface InItem {
  item_id: string;
  output_index: number;
}
interface InPart extends InItem {
  content_index: number;
}
interface InSummary extends InItem {
  summary_index: number;
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
      part: OutputContent | ReasoningText;
    } & InPart)
  | ({
      type: 'response.reasoning_summary_part.added' | 'response.reasoning_summary_part.done';
      part: SummaryText;
    } & InSummary)
  | ({ type: 'response.reasoning_summary_text.delta'; delta: string } & InSummary)
  | ({ type: 'response.reasoning_summary_text.done'; text: string } & InSummary)
  | ({ type: 'response.reasoning_text.delta'; delta: string } & InPart)
  | ({ type: 'response.reasoning_text.done'; text: string } & InPart)
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
 * `response.in_progress`, then each output item (the reasoning, a message, or a function call
 * per tool call) from `output_item.added` through its deltas to `output_item.done`, then `response.completed`
 * (or `response.incomplete` when the answer was cut short) carrying the whole Response, with the
 * usage of the stream's usage chunk. Items come one after another, in the order the model
 * began them, so `output_index` is their place in the final `output`.
 *
 * Reasoning is streamed as OpenAI streams it: its text as summary deltas when the request asked
 * for a summary (then the whole text as the item's `content`), as `reasoning_text` deltas
 * otherwise; the provider's pieces are sealed into `encrypted_content` when the item closes.
 * Pieces that arrive once the answer has begun (a signature given with the last text) cannot
 * join an item already done: they end the output as a reasoning item of their own.
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
  sealer: Sealer,
): AsyncGenerator<ResponseStreamEvent, void, undefined> {
  const events = new ResponseEvents(body, ids, sealer);
  try {
    for await (const chunk of chunks) yield* events.chunk(chunk);
    yield* events.finish();
  } catch (error) {
    yield* events.fail(error);
    if (!(error instanceof UpstreamStreamError)) throw error;
  }
}

interface OpenReasoning {
  readonly kind: 'reasoning';
  readonly id: string;
  readonly index: number;
  text: string;
  /** The text is streamed as summary 0 (a summary was asked for) or as content part 0. */
  streamed: 'summary' | 'content' | undefined;
  readonly details: ReasoningDetail[];
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

type OpenItem = OpenReasoning | OpenMessage | OpenCall;

/** The state of one response's stream; each method yields the events a step produces. */
class ResponseEvents {
  readonly #body: ResponsesRequest;
  readonly #ids: ResponseIds;
  readonly #sealer: Sealer;
  #sequence = 0;
  #model: string | undefined;
  /** Closed items, at their `output_index`. */
  readonly #done: OutputItem[] = [];
  /** At most one item is open: it is closed before the next one begins. */
  #open: OpenItem | undefined;
  /** The calls begun so far, by their index in the chunks' `tool_calls`. */
  readonly #calls = new Map<number, OpenCall>();
  /** Reasoning pieces that came after the reasoning item closed. */
  readonly #late: ReasoningDetail[] = [];
  #finish: FinishReason | undefined;
  #usage: ChatUsage | undefined;

  constructor(body: ResponsesRequest, ids: ResponseIds, sealer: Sealer) {
    this.#body = body;
    this.#ids = ids;
    this.#sealer = sealer;
  }

  async *chunk(chunk: ChatChunk): AsyncGenerator<ResponseStreamEvent> {
    yield* this.#start(chunk.model);
    if (chunk.usage) this.#usage = chunk.usage;
    // A response has one answer: the request never asks for more than one choice.
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (!choice) return;
    const { delta } = choice;
    // Pieces first: those that come with a tool call's first delta belong to the reasoning
    // before it, which the call would close.
    if (delta.reasoning_details?.length) yield* this.#reasoningDetails(delta.reasoning_details);
    if (delta.reasoning) yield* this.#reasoningText(delta.reasoning);
    if (delta.content) yield* this.#text('output_text', delta.content);
    if (delta.refusal) yield* this.#text('refusal', delta.refusal);
    for (const call of delta.tool_calls ?? []) yield* this.#toolCall(call);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
  }

  async *finish(): AsyncGenerator<ResponseStreamEvent> {
    if (this.#finish === undefined) {
      throw new Error('The chat stream ended without a finish reason.');
    }
    const outcome = outcomeOf(this.#finish);
    yield* this.#start(this.#body.model);
    // Every response has an answer: a model that said nothing said an empty message.
    const answered =
      this.#done.some((item) => item.type !== 'reasoning') ||
      (this.#open !== undefined && this.#open.kind !== 'reasoning');
    if (!answered) yield* this.#openPart(yield* this.#openMessage(), 'output_text');
    yield* this.#close(outcome.status === 'incomplete' ? 'incomplete' : 'completed');
    if (this.#late.length > 0) {
      this.#open = yield* this.#openReasoning();
      this.#open.details.push(...this.#late);
      yield* this.#close('completed');
    }
    yield this.#event({
      type: outcome.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
      response: this.#response({ ...outcome, output: [...this.#done] }),
    });
  }

  async *fail(error: unknown): AsyncGenerator<ResponseStreamEvent> {
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

  async *#reasoningDetails(
    details: readonly ReasoningDetail[],
  ): AsyncGenerator<ResponseStreamEvent> {
    if (this.#open?.kind === 'reasoning') {
      mergeDetails(this.#open.details, details);
    } else if (this.#open === undefined && this.#done.length === 0) {
      const reasoning = yield* this.#openReasoning();
      mergeDetails(reasoning.details, details);
    } else {
      mergeDetails(this.#late, details);
    }
  }

  async *#reasoningText(delta: string): AsyncGenerator<ResponseStreamEvent> {
    const reasoning = this.#open?.kind === 'reasoning' ? this.#open : yield* this.#openReasoning();
    const at = { item_id: reasoning.id, output_index: reasoning.index };
    if (reasoning.streamed === undefined) {
      reasoning.streamed = summaryAsked(this.#body) ? 'summary' : 'content';
      yield this.#event(
        reasoning.streamed === 'summary'
          ? {
              type: 'response.reasoning_summary_part.added',
              ...at,
              summary_index: 0,
              part: { type: 'summary_text', text: '' },
            }
          : {
              type: 'response.content_part.added',
              ...at,
              content_index: 0,
              part: { type: 'reasoning_text', text: '' },
            },
      );
    }
    reasoning.text += delta;
    yield this.#event(
      reasoning.streamed === 'summary'
        ? { type: 'response.reasoning_summary_text.delta', ...at, summary_index: 0, delta }
        : { type: 'response.reasoning_text.delta', ...at, content_index: 0, delta },
    );
  }

  async *#openReasoning(): AsyncGenerator<ResponseStreamEvent, OpenReasoning> {
    yield* this.#close('completed');
    const reasoning: OpenReasoning = {
      kind: 'reasoning',
      id: this.#ids.item('rs'),
      index: this.#done.length,
      text: '',
      streamed: undefined,
      details: [],
    };
    this.#open = reasoning;
    yield this.#event({
      type: 'response.output_item.added',
      output_index: reasoning.index,
      item: this.#snapshot(reasoning, 'in_progress'),
    });
    return reasoning;
  }

  /** The events that end the reasoning's text: the summary's, then the text as content. */
  *#closeReasoningText(reasoning: OpenReasoning): Generator<ResponseStreamEvent> {
    const { text } = reasoning;
    const at = { item_id: reasoning.id, output_index: reasoning.index };
    const content = { ...at, content_index: 0 };
    if (reasoning.streamed === 'summary') {
      const summary = { ...at, summary_index: 0 };
      const part = { type: 'summary_text' as const, text };
      yield this.#event({ type: 'response.reasoning_summary_text.done', ...summary, text });
      yield this.#event({ type: 'response.reasoning_summary_part.done', ...summary, part });
      yield this.#event({
        type: 'response.content_part.added',
        ...content,
        part: { type: 'reasoning_text', text: '' },
      });
      yield this.#event({ type: 'response.reasoning_text.delta', ...content, delta: text });
    }
    if (reasoning.streamed !== undefined) {
      yield this.#event({ type: 'response.reasoning_text.done', ...content, text });
      yield this.#event({
        type: 'response.content_part.done',
        ...content,
        part: { type: 'reasoning_text', text },
      });
    }
  }

  async *#text(type: OutputContent['type'], delta: string): AsyncGenerator<ResponseStreamEvent> {
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

  async *#toolCall(delta: ToolCallDelta): AsyncGenerator<ResponseStreamEvent> {
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

  async *#openMessage(): AsyncGenerator<ResponseStreamEvent, OpenMessage> {
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
  async *#close(status: ItemStatus): AsyncGenerator<ResponseStreamEvent> {
    const open = this.#open;
    if (!open) return;
    let item: OutputItem;
    if (open.kind === 'reasoning') {
      yield* this.#closeReasoningText(open);
      item = await reasoningItem(this.#body, open.id, status, {
        text: open.text,
        details: open.details,
        sealer: this.#sealer,
      });
    } else {
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
      item = this.#snapshot(open, status);
    }
    this.#done.push(item);
    this.#open = undefined;
    yield this.#event({ type: 'response.output_item.done', output_index: open.index, item });
  }

  /**
   * The item as it stands, as a new object: an event already sent must not change with later
   * deltas. Closed parts and closed items are never changed, so they are shared. A reasoning
   * item's pieces are sealed only when it closes: until then its `encrypted_content` is null.
   */
  #snapshot(open: OpenItem, status: ItemStatus): OutputItem {
    if (open.kind === 'reasoning') {
      const { text, streamed } = open;
      return {
        id: open.id,
        type: 'reasoning',
        status,
        summary: streamed === 'summary' ? [{ type: 'summary_text', text }] : [],
        content: streamed === 'content' ? [{ type: 'reasoning_text', text }] : [],
        encrypted_content: null,
      };
    }
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

/**
 * Adds streamed reasoning pieces to those gathered so far: a text or summary piece continues
 * the one of the same `index` (the signature comes with its last delta); any other piece is
 * added whole.
 */
export function mergeDetails(into: ReasoningDetail[], pieces: readonly ReasoningDetail[]): void {
  for (const piece of pieces) {
    const same =
      piece.index === undefined
        ? undefined
        : into.find((known) => known.index === piece.index && known.type === piece.type);
    if (same?.type === 'reasoning.text' && piece.type === 'reasoning.text') {
      same.text += piece.text;
      if (piece.signature) same.signature = piece.signature;
    } else if (same?.type === 'reasoning.summary' && piece.type === 'reasoning.summary') {
      same.summary += piece.summary;
    } else {
      into.push({ ...piece });
    }
  }
}

function contentOf(part: NonNullable<OpenMessage['part']>): OutputContent {
  return part.type === 'output_text'
    ? outputText(part.text)
    : { type: 'refusal', refusal: part.text };
}
