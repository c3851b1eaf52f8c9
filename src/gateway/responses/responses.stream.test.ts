import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Scripted, startOpenAiSimulator } from '../../testing/simulators/openai-simulator.ts';
import type { ReasoningDetail } from '../chat.schemas.ts';
import {
  type ChatChunk,
  type ChatCompletion,
  type ChatDelta,
  type FinishReason,
  UpstreamStreamError,
} from '../provider.ts';
import { createSealer } from '../sealing.ts';
import { newResponseIds, type ResponseIds, toResponse } from './responses.mapping.ts';
import type { ResponsesRequest } from './responses.schemas.ts';
import { formatResponseEvent } from './responses.sse.ts';
import { type ResponseStreamEvent, toResponseEvents } from './responses.stream.ts';

const catalogModel = 'openai/gpt-4.1-2025-04-14';
const usage = {
  prompt_tokens: 20,
  completion_tokens: 9,
  total_tokens: 29,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
};

const chunk = (delta: ChatDelta, finish: FinishReason | null = null): ChatChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1_750_000_001,
  model: catalogModel,
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usageChunk: ChatChunk = { ...chunk({}), choices: [], usage };

const textChunks = (...pieces: string[]): ChatChunk[] => [
  chunk({ role: 'assistant', content: '' }),
  ...pieces.map((content) => chunk({ content })),
];
const callChunks = (index: number, id: string, name: string, ...args: string[]): ChatChunk[] => [
  chunk({
    tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }],
  }),
  ...args.map((piece) => chunk({ tool_calls: [{ index, function: { arguments: piece } }] })),
];
const ending = (finish: FinishReason): ChatChunk[] => [chunk({}, finish), usageChunk];

const outage = new UpstreamStreamError({
  message: 'The provider is overloaded.',
  type: 'server_error',
  param: null,
  code: 'overloaded',
});

async function* replay(chunks: readonly ChatChunk[], failure?: Error): AsyncGenerator<ChatChunk> {
  for (const next of chunks) yield next;
  if (failure) throw failure;
}

function countingIds(): ResponseIds {
  const used = { msg: 0, fc: 0, rs: 0 };
  return {
    response: 'resp_1',
    createdAt: 1_750_000_000,
    item: (kind) => `${kind}_${++used[kind]}`,
    now: () => 1_750_000_002,
  };
}

const sealer = createSealer(randomBytes(32));

const body: ResponsesRequest = { model: 'openai/gpt-4.1', input: 'Hi', stream: true };

async function events(
  chunks: readonly ChatChunk[],
  failure?: Error,
  request: ResponsesRequest = body,
): Promise<{ events: ResponseStreamEvent[]; thrown: unknown }> {
  const seen: ResponseStreamEvent[] = [];
  let thrown: unknown;
  try {
    const stream = toResponseEvents(replay(chunks, failure), request, countingIds(), sealer);
    for await (const event of stream) {
      seen.push(event);
    }
  } catch (error) {
    thrown = error;
  }
  return { events: seen, thrown };
}

/** The Response a whole completion would have given, as the final event must carry. */
async function wholeResponse(
  message: ChatCompletion['choices'][number]['message'],
  finish: FinishReason,
) {
  const completion: ChatCompletion = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_750_000_001,
    model: catalogModel,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    usage,
  };
  return toResponse(completion, body, countingIds(), sealer);
}

async function inProgress() {
  return {
    ...(await wholeResponse({ role: 'assistant', content: '', refusal: null }, 'stop')),
    status: 'in_progress',
    completed_at: null,
    output: [],
    usage: null,
  };
}

const outputText = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });

describe('toResponseEvents', () => {
  it('streams a text answer as one message item, then the whole response', async () => {
    const { events: seen, thrown } = await events([
      ...textChunks('Hello', ' there'),
      ...ending('stop'),
    ]);
    expect(thrown).toBeUndefined();
    const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
    const message = { id: 'msg_1', type: 'message', role: 'assistant' };
    expect(seen).toEqual([
      { type: 'response.created', sequence_number: 0, response: await inProgress() },
      { type: 'response.in_progress', sequence_number: 1, response: await inProgress() },
      {
        type: 'response.output_item.added',
        sequence_number: 2,
        output_index: 0,
        item: { ...message, status: 'in_progress', content: [] },
      },
      { type: 'response.content_part.added', sequence_number: 3, ...at, part: outputText('') },
      {
        type: 'response.output_text.delta',
        sequence_number: 4,
        ...at,
        delta: 'Hello',
        logprobs: [],
      },
      {
        type: 'response.output_text.delta',
        sequence_number: 5,
        ...at,
        delta: ' there',
        logprobs: [],
      },
      {
        type: 'response.output_text.done',
        sequence_number: 6,
        ...at,
        text: 'Hello there',
        logprobs: [],
      },
      {
        type: 'response.content_part.done',
        sequence_number: 7,
        ...at,
        part: outputText('Hello there'),
      },
      {
        type: 'response.output_item.done',
        sequence_number: 8,
        output_index: 0,
        item: { ...message, status: 'completed', content: [outputText('Hello there')] },
      },
      {
        type: 'response.completed',
        sequence_number: 9,
        response: await wholeResponse(
          { role: 'assistant', content: 'Hello there', refusal: null },
          'stop',
        ),
      },
    ]);
  });

  it('streams parallel tool calls as function_call items, one after the other', async () => {
    const { events: seen } = await events([
      chunk({ role: 'assistant', content: null }),
      ...callChunks(0, 'call_w', 'get_weather', '{"city":', '"Paris"}'),
      ...callChunks(1, 'call_t', 'get_time', '{}'),
      ...ending('tool_calls'),
    ]);
    const call = (id: string, callId: string, name: string, args: string, status: string) => ({
      id,
      type: 'function_call',
      status,
      call_id: callId,
      name,
      arguments: args,
    });
    expect(seen.slice(2)).toEqual([
      {
        type: 'response.output_item.added',
        sequence_number: 2,
        output_index: 0,
        item: call('fc_1', 'call_w', 'get_weather', '', 'in_progress'),
      },
      {
        type: 'response.function_call_arguments.delta',
        sequence_number: 3,
        item_id: 'fc_1',
        output_index: 0,
        delta: '{"city":',
      },
      {
        type: 'response.function_call_arguments.delta',
        sequence_number: 4,
        item_id: 'fc_1',
        output_index: 0,
        delta: '"Paris"}',
      },
      {
        type: 'response.function_call_arguments.done',
        sequence_number: 5,
        item_id: 'fc_1',
        output_index: 0,
        arguments: '{"city":"Paris"}',
      },
      {
        type: 'response.output_item.done',
        sequence_number: 6,
        output_index: 0,
        item: call('fc_1', 'call_w', 'get_weather', '{"city":"Paris"}', 'completed'),
      },
      {
        type: 'response.output_item.added',
        sequence_number: 7,
        output_index: 1,
        item: call('fc_2', 'call_t', 'get_time', '', 'in_progress'),
      },
      {
        type: 'response.function_call_arguments.delta',
        sequence_number: 8,
        item_id: 'fc_2',
        output_index: 1,
        delta: '{}',
      },
      {
        type: 'response.function_call_arguments.done',
        sequence_number: 9,
        item_id: 'fc_2',
        output_index: 1,
        arguments: '{}',
      },
      {
        type: 'response.output_item.done',
        sequence_number: 10,
        output_index: 1,
        item: call('fc_2', 'call_t', 'get_time', '{}', 'completed'),
      },
      {
        type: 'response.completed',
        sequence_number: 11,
        response: await wholeResponse(
          {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              {
                id: 'call_w',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
              { id: 'call_t', type: 'function', function: { name: 'get_time', arguments: '{}' } },
            ],
          },
          'tool_calls',
        ),
      },
    ]);
  });

  it('closes the message before a tool call that follows it', async () => {
    const { events: seen } = await events([
      ...textChunks('Let me check.'),
      ...callChunks(0, 'call_w', 'get_weather', '{"city":"Paris"}'),
      ...ending('tool_calls'),
    ]);
    expect(
      seen.map((event) => [event.type, 'output_index' in event ? event.output_index : null]),
    ).toEqual([
      ['response.created', null],
      ['response.in_progress', null],
      ['response.output_item.added', 0],
      ['response.content_part.added', 0],
      ['response.output_text.delta', 0],
      ['response.output_text.done', 0],
      ['response.content_part.done', 0],
      ['response.output_item.done', 0],
      ['response.output_item.added', 1],
      ['response.function_call_arguments.delta', 1],
      ['response.function_call_arguments.done', 1],
      ['response.output_item.done', 1],
      ['response.completed', null],
    ]);
    expect(seen.at(-1)).toEqual({
      type: 'response.completed',
      sequence_number: 12,
      response: await wholeResponse(
        {
          role: 'assistant',
          content: 'Let me check.',
          refusal: null,
          tool_calls: [
            {
              id: 'call_w',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        'tool_calls',
      ),
    });
  });

  it('ends an answer cut at the length limit with response.incomplete', async () => {
    const { events: seen } = await events([...textChunks('Once upon'), ...ending('length')]);
    expect(seen.at(-2)).toMatchObject({
      type: 'response.output_item.done',
      item: { status: 'incomplete' },
    });
    expect(seen.at(-1)).toEqual({
      type: 'response.incomplete',
      sequence_number: 8,
      response: await wholeResponse(
        { role: 'assistant', content: 'Once upon', refusal: null },
        'length',
      ),
    });
  });

  it('streams a refusal as a refusal part', async () => {
    const { events: seen } = await events([
      chunk({ role: 'assistant', refusal: '' }),
      chunk({ refusal: 'I cannot' }),
      chunk({ refusal: ' help.' }),
      ...ending('stop'),
    ]);
    const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
    expect(seen.slice(3, 8)).toEqual([
      {
        type: 'response.content_part.added',
        sequence_number: 3,
        ...at,
        part: { type: 'refusal', refusal: '' },
      },
      { type: 'response.refusal.delta', sequence_number: 4, ...at, delta: 'I cannot' },
      { type: 'response.refusal.delta', sequence_number: 5, ...at, delta: ' help.' },
      { type: 'response.refusal.done', sequence_number: 6, ...at, refusal: 'I cannot help.' },
      {
        type: 'response.content_part.done',
        sequence_number: 7,
        ...at,
        part: { type: 'refusal', refusal: 'I cannot help.' },
      },
    ]);
    expect(seen.at(-1)).toMatchObject({
      response: await wholeResponse(
        { role: 'assistant', content: null, refusal: 'I cannot help.' },
        'stop',
      ),
    });
  });

  it('gives an answer with nothing in it an empty message, as the whole response does', async () => {
    const { events: seen } = await events([
      chunk({ role: 'assistant', content: '' }),
      ...ending('stop'),
    ]);
    expect(seen.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(seen.at(-1)).toMatchObject({
      response: await wholeResponse({ role: 'assistant', content: '', refusal: null }, 'stop'),
    });
  });

  it('ends with an error event and response.failed when the provider fails mid-stream', async () => {
    const { events: seen, thrown } = await events(textChunks('Half an'), outage);
    expect(thrown).toBeUndefined();
    expect(seen.slice(-2)).toEqual([
      {
        type: 'error',
        sequence_number: 5,
        code: 'overloaded',
        message: 'The provider is overloaded.',
        param: null,
        error: {
          message: 'The provider is overloaded.',
          type: 'server_error',
          param: null,
          code: 'overloaded',
        },
      },
      {
        type: 'response.failed',
        sequence_number: 6,
        response: {
          ...(await inProgress()),
          status: 'failed',
          error: { code: 'overloaded', message: 'The provider is overloaded.' },
          output: [
            {
              id: 'msg_1',
              type: 'message',
              status: 'incomplete',
              role: 'assistant',
              content: [outputText('Half an')],
            },
          ],
        },
      },
    ]);
  });

  it('fails the response on any other error too, then throws it for the caller to log', async () => {
    const bug = new TypeError('boom');
    const { events: seen, thrown } = await events(textChunks('Half'), bug);
    expect(thrown).toBe(bug);
    expect(seen.slice(-2)).toMatchObject([
      {
        type: 'error',
        code: null,
        message: 'The server had an error while processing your request.',
        error: { type: 'api_error', code: null },
      },
      { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error' } } },
    ]);
  });

  it('starts the response even when the chunks fail before the first one', async () => {
    const { events: seen } = await events([], outage);
    expect(seen.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'error',
      'response.failed',
    ]);
    expect(seen[0]).toMatchObject({ response: { model: 'openai/gpt-4.1', status: 'in_progress' } });
  });

  it('fails on chunks that break the contract: a call resumed after the next began, no finish reason', async () => {
    const resumed = await events([
      ...callChunks(0, 'call_a', 'a', '{'),
      ...callChunks(1, 'call_b', 'b', '{}'),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '}' } }] }),
      ...ending('tool_calls'),
    ]);
    expect(resumed.thrown).toEqual(new Error('Tool call 0 continued after the next item began.'));
    expect(resumed.events.at(-1)).toMatchObject({ type: 'response.failed' });

    const unfinished = await events(textChunks('Hello'));
    expect(unfinished.thrown).toEqual(new Error('The chat stream ended without a finish reason.'));
    expect(unfinished.events.at(-1)).toMatchObject({ type: 'response.failed' });
  });

  it('releases the chunk source when the reader stops early', async () => {
    let released = false;
    async function* source(): AsyncGenerator<ChatChunk> {
      try {
        yield* textChunks('one', ' two', ' three');
        yield* ending('stop');
      } finally {
        released = true;
      }
    }
    for await (const event of toResponseEvents(source(), body, countingIds(), sealer)) {
      if (event.type === 'response.output_text.delta') break;
    }
    expect(released).toBe(true);
  });
});

describe('reasoning in the stream', () => {
  const signed: ReasoningDetail[] = [
    { type: 'reasoning.text', text: 'Think', signature: null, format: 'anthropic', index: 0 },
    { type: 'reasoning.text', text: ' twice.', signature: 'sig-1', format: 'anthropic', index: 0 },
  ];
  const thinking: ChatChunk[] = [
    chunk({
      role: 'assistant',
      reasoning: 'Think',
      reasoning_details: [signed[0] as ReasoningDetail],
    }),
    chunk({ reasoning: ' twice.', reasoning_details: [signed[1] as ReasoningDetail] }),
  ];
  const merged: ReasoningDetail[] = [
    {
      type: 'reasoning.text',
      text: 'Think twice.',
      signature: 'sig-1',
      format: 'anthropic',
      index: 0,
    },
  ];
  /** The sealed pieces of a reasoning item, opened. */
  const opened = (item: unknown) =>
    sealer.open('reasoning', (item as { encrypted_content: string }).encrypted_content);
  const reasoningAt = { item_id: 'rs_1', output_index: 0 };

  it('streams the text as reasoning_text, seals the pieces when the item closes, then the answer', async () => {
    const { events: seen, thrown } = await events([
      ...thinking,
      ...textChunks('Done.'),
      ...ending('stop'),
    ]);
    expect(thrown).toBeUndefined();
    expect(seen.slice(2, 10)).toEqual([
      {
        type: 'response.output_item.added',
        sequence_number: 2,
        output_index: 0,
        item: {
          id: 'rs_1',
          type: 'reasoning',
          status: 'in_progress',
          summary: [],
          content: [],
          encrypted_content: null,
        },
      },
      {
        type: 'response.content_part.added',
        sequence_number: 3,
        ...reasoningAt,
        content_index: 0,
        part: { type: 'reasoning_text', text: '' },
      },
      {
        type: 'response.reasoning_text.delta',
        sequence_number: 4,
        ...reasoningAt,
        content_index: 0,
        delta: 'Think',
      },
      {
        type: 'response.reasoning_text.delta',
        sequence_number: 5,
        ...reasoningAt,
        content_index: 0,
        delta: ' twice.',
      },
      {
        type: 'response.reasoning_text.done',
        sequence_number: 6,
        ...reasoningAt,
        content_index: 0,
        text: 'Think twice.',
      },
      {
        type: 'response.content_part.done',
        sequence_number: 7,
        ...reasoningAt,
        content_index: 0,
        part: { type: 'reasoning_text', text: 'Think twice.' },
      },
      {
        type: 'response.output_item.done',
        sequence_number: 8,
        output_index: 0,
        item: {
          id: 'rs_1',
          type: 'reasoning',
          status: 'completed',
          summary: [],
          content: [{ type: 'reasoning_text', text: 'Think twice.' }],
          encrypted_content: expect.any(String),
        },
      },
      {
        type: 'response.output_item.added',
        sequence_number: 9,
        output_index: 1,
        item: {
          id: 'msg_1',
          type: 'message',
          status: 'in_progress',
          role: 'assistant',
          content: [],
        },
      },
    ]);
    const done = seen[8] as { item: unknown };
    // The text's pieces of one index are one piece, with the signature of the last.
    expect(await opened(done.item)).toEqual(merged);
    const last = seen.at(-1) as { type: string; response: { output: unknown[] } };
    expect(last.type).toBe('response.completed');
    // The final response is the whole answer's, but for the sealed token (sealed anew).
    const whole = await wholeResponse(
      {
        role: 'assistant',
        content: 'Done.',
        refusal: null,
        reasoning: 'Think twice.',
        reasoning_details: merged,
      },
      'stop',
    );
    expect(last.response).toEqual({
      ...whole,
      output: [{ ...whole.output[0], encrypted_content: expect.any(String) }, whole.output[1]],
    });
  });

  it('streams the text as the summary when one was asked for, then gives it as content', async () => {
    const request = { ...body, reasoning: { effort: 'low' as const, summary: 'auto' as const } };
    const { events: seen } = await events(
      [...thinking, ...textChunks('Done.'), ...ending('stop')],
      undefined,
      request,
    );
    const summaryAt = { ...reasoningAt, summary_index: 0 };
    const contentAt = { ...reasoningAt, content_index: 0 };
    expect(seen.slice(3, 13).map(({ sequence_number: _, ...event }) => event)).toEqual([
      {
        type: 'response.reasoning_summary_part.added',
        ...summaryAt,
        part: { type: 'summary_text', text: '' },
      },
      { type: 'response.reasoning_summary_text.delta', ...summaryAt, delta: 'Think' },
      { type: 'response.reasoning_summary_text.delta', ...summaryAt, delta: ' twice.' },
      { type: 'response.reasoning_summary_text.done', ...summaryAt, text: 'Think twice.' },
      {
        type: 'response.reasoning_summary_part.done',
        ...summaryAt,
        part: { type: 'summary_text', text: 'Think twice.' },
      },
      {
        type: 'response.content_part.added',
        ...contentAt,
        part: { type: 'reasoning_text', text: '' },
      },
      { type: 'response.reasoning_text.delta', ...contentAt, delta: 'Think twice.' },
      { type: 'response.reasoning_text.done', ...contentAt, text: 'Think twice.' },
      {
        type: 'response.content_part.done',
        ...contentAt,
        part: { type: 'reasoning_text', text: 'Think twice.' },
      },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          id: 'rs_1',
          type: 'reasoning',
          status: 'completed',
          summary: [{ type: 'summary_text', text: 'Think twice.' }],
          content: [{ type: 'reasoning_text', text: 'Think twice.' }],
          encrypted_content: expect.any(String),
        },
      },
    ]);
    expect((seen.at(-1) as { response: object }).response).toMatchObject({
      reasoning: { effort: 'low', summary: 'auto' },
    });
  });

  it('gives pieces that come with a tool call to a reasoning item before the call', async () => {
    const signature: ReasoningDetail = {
      type: 'reasoning.encrypted',
      data: 'thought-signature',
      id: 'call_1',
      format: 'gemini',
    };
    const [first, ...rest] = callChunks(0, 'call_1', 'f', '{}');
    const { events: seen } = await events([
      {
        ...chunk({}),
        choices: [
          {
            index: 0,
            delta: { ...(first as ChatChunk).choices[0]?.delta, reasoning_details: [signature] },
            finish_reason: null,
          },
        ],
      },
      ...rest,
      ...ending('tool_calls'),
    ]);
    const final = (seen.at(-1) as { response: { output: { type: string; id: string }[] } })
      .response;
    expect(final.output.map((item) => item.id)).toEqual(['rs_1', 'fc_1']);
    expect(await opened(final.output[0])).toEqual([signature]);
    // No text: no text events, only the item's own.
    expect(seen.filter((event) => event.type.includes('reasoning'))).toEqual([]);
  });

  it('ends the output with the pieces that came after the answer began', async () => {
    const late: ReasoningDetail = {
      type: 'reasoning.encrypted',
      data: 'text-signature',
      id: null,
      format: 'gemini',
    };
    const { events: seen } = await events([
      ...thinking,
      ...textChunks('Done.'),
      chunk({ reasoning_details: [late] }),
      ...ending('stop'),
    ]);
    const final = (seen.at(-1) as { response: { output: { type: string; id: string }[] } })
      .response;
    expect(final.output.map((item) => item.id)).toEqual(['rs_1', 'msg_1', 'rs_2']);
    expect(await opened(final.output[0])).toEqual(merged);
    expect(await opened(final.output[2])).toEqual([late]);
  });

  it('gives a response that only reasoned an empty message after its reasoning', async () => {
    const { events: seen } = await events([...thinking, ...ending('length')]);
    const final = seen.at(-1) as { type: string; response: { output: object[] } };
    expect(final.type).toBe('response.incomplete');
    expect(final.response.output).toEqual([
      expect.objectContaining({ id: 'rs_1', status: 'completed' }),
      expect.objectContaining({ id: 'msg_1', status: 'incomplete', content: [outputText('')] }),
    ]);
  });

  it('fails with the reasoning so far, unsealed, when the provider fails mid-thought', async () => {
    const { events: seen } = await events(thinking, outage);
    expect((seen.at(-1) as { response: { output: object[] } }).response.output).toEqual([
      {
        id: 'rs_1',
        type: 'reasoning',
        status: 'incomplete',
        summary: [],
        content: [{ type: 'reasoning_text', text: 'Think twice.' }],
        encrypted_content: null,
      },
    ]);
  });
});

describe('formatResponseEvent', () => {
  it('names the event by its type, as OpenAI does', () => {
    expect(
      formatResponseEvent({
        type: 'response.function_call_arguments.delta',
        item_id: 'fc_1',
        output_index: 0,
        delta: '{}',
        sequence_number: 3,
      }),
    ).toBe(
      'event: response.function_call_arguments.delta\ndata: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{}","sequence_number":3}\n\n',
    );
  });
});

/**
 * The events as a client meets them: served over HTTP as `/v1/responses` and read by the
 * official SDK, which checks each event against the response it rebuilds and throws on any
 * that does not fit.
 */
describe('read by the official openai package', () => {
  let server: Server;
  let client: OpenAI;
  let script: { chunks: ChatChunk[]; failure?: Error } = { chunks: [] };
  let whole: ChatCompletion | undefined;

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const parts: Buffer[] = [];
      for await (const part of req) parts.push(part as Buffer);
      const request = JSON.parse(Buffer.concat(parts).toString('utf8')) as ResponsesRequest;
      if (request.stream !== true && whole) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(await toResponse(whole, request, newResponseIds(), sealer)));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      const stream = toResponseEvents(
        replay(script.chunks, script.failure),
        request,
        newResponseIds(),
        sealer,
      );
      try {
        for await (const event of stream) res.write(formatResponseEvent(event));
      } finally {
        res.end();
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    client = new OpenAI({
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: 'sk-test',
      maxRetries: 0,
    });
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads a whole response, with output_text added by the SDK', async () => {
    whole = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_750_000_001,
      model: catalogModel,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Paris.', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage,
    };
    const response = await client.responses.create({ model: 'openai/gpt-4.1', input: 'Capital?' });
    expect(response.output_text).toBe('Paris.');
    expect(response.status).toBe('completed');
    expect(response.usage?.total_tokens).toBe(29);
  });

  it('rebuilds a streamed text answer with responses.stream()', async () => {
    script = { chunks: [...textChunks('The quick', ' brown', ' fox.'), ...ending('stop')] };
    const stream = client.responses.stream({ model: 'openai/gpt-4.1', input: 'Hi' });
    const snapshots: string[] = [];
    stream.on('response.output_text.delta', (event) => snapshots.push(event.snapshot));
    const final = await stream.finalResponse();

    expect(final.output_text).toBe('The quick brown fox.');
    expect(snapshots).toEqual(['The quick', 'The quick brown', 'The quick brown fox.']);
    expect(final.status).toBe('completed');
    expect(final.id).toMatch(/^resp_/);
    expect(final.model).toBe(catalogModel);
    expect(final.usage).toEqual({
      input_tokens: 20,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 29,
    });
  });

  it('rebuilds parallel function calls with responses.stream()', async () => {
    script = {
      chunks: [
        ...callChunks(0, 'call_w', 'get_weather', '{"city":', '"Paris"}'),
        ...callChunks(1, 'call_t', 'get_time', '{"tz":"CET"}'),
        ...ending('tool_calls'),
      ],
    };
    const final = await client.responses
      .stream({
        model: 'openai/gpt-4.1',
        input: 'Weather and time?',
        tools: [
          { type: 'function', name: 'get_weather', parameters: { type: 'object' }, strict: false },
          { type: 'function', name: 'get_time', parameters: { type: 'object' }, strict: false },
        ],
      })
      .finalResponse();

    expect(final.output).toMatchObject([
      {
        type: 'function_call',
        call_id: 'call_w',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
        status: 'completed',
      },
      {
        type: 'function_call',
        call_id: 'call_t',
        name: 'get_time',
        arguments: '{"tz":"CET"}',
        status: 'completed',
      },
    ]);
    expect(final.output[0]?.id).toMatch(/^fc_/);
    expect(final.output_text).toBe('');
  });

  it('gives every event to a create({stream: true}) loop: text, then a call', async () => {
    script = {
      chunks: [
        ...textChunks('Checking', ' now.'),
        ...callChunks(0, 'call_w', 'get_weather', '{"city":"Oslo"}'),
        ...ending('tool_calls'),
      ],
    };
    const stream = await client.responses.create({
      model: 'openai/gpt-4.1',
      input: 'Hi',
      stream: true,
    });
    let text = '';
    let args = '';
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.function_call_arguments.delta') args += event.delta;
    }
    expect(text).toBe('Checking now.');
    expect(args).toBe('{"city":"Oslo"}');
    expect(types.at(-1)).toBe('response.completed');
  });

  it('throws from both helpers when the provider fails mid-stream', async () => {
    script = { chunks: textChunks('Half', ' an'), failure: outage };
    const stream = await client.responses.create({
      model: 'openai/gpt-4.1',
      input: 'Hi',
      stream: true,
    });
    let received = '';
    const thrown = await (async () => {
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') received += event.delta;
      }
    })().catch((error: unknown) => error);
    expect(received).toBe('Half an');
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect(thrown).toMatchObject({ message: 'The provider is overloaded.', code: 'overloaded' });

    script = { chunks: textChunks('Half'), failure: outage };
    const failed = await client.responses
      .stream({ model: 'openai/gpt-4.1', input: 'Hi' })
      .finalResponse()
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
  });
});

/** An event's shape: its type and the names of its fields, an item's and a part's included. */
function shapeOf(event: object): string {
  const field = (name: string) => Object.entries(event).find(([key]) => key === name)?.[1];
  const names = (value: unknown) =>
    typeof value === 'object' && value !== null ? Object.keys(value).sort().join(',') : '';
  return `${field('type')} {${names(event)}} item {${names(field('item'))}} part {${names(field('part'))}}`;
}

/** The shapes in order, a run of deltas counted once: how many there are depends on splitting. */
const shapes = (events: readonly object[]) =>
  events
    .map(shapeOf)
    .filter((shape, index, all) => !shape.includes('.delta ') || all[index - 1] !== shape);

/** The fields of the Response that the last event carries. */
const responseFields = (events: readonly object[]) =>
  Object.keys(Object.entries(events.at(-1) ?? {}).find(([key]) => key === 'response')?.[1] ?? {});

describe('shaped as OpenAI sends them', () => {
  it('has the events, and the fields in each, of the OpenAI simulator', async () => {
    const sim = await startOpenAiSimulator({ apiKey: 'sk-test', chunkDelayMs: 0 });
    const openai = async (answer: Scripted): Promise<object[]> => {
      sim.script(answer);
      const reply = await fetch(`${sim.baseUrl}/responses`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', input: 'Hi', stream: true }),
      });
      return (await reply.text())
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice('data: '.length)));
    };
    const cases: [Scripted, ChatChunk[]][] = [
      [
        { kind: 'text', text: 'Hello there' },
        [...textChunks('Hello', ' there'), ...ending('stop')],
      ],
      [
        { kind: 'tool_calls', calls: [{ id: 'call_1', name: 'f', arguments: '{"a":1}' }] },
        [...callChunks(0, 'call_1', 'f', '{"a":1}'), ...ending('tool_calls')],
      ],
    ];
    try {
      for (const [answer, chunks] of cases) {
        const theirs = await openai(answer);
        const { events: ours } = await events(chunks);
        expect(shapes(ours)).toEqual(shapes(theirs));
        // Every field of mnemo's Response is one of OpenAI's; OpenAI sends a few more.
        expect(responseFields(theirs)).toEqual(expect.arrayContaining(responseFields(ours)));
        expect(responseFields(ours).length).toBeGreaterThan(20);
      }
    } finally {
      await sim.close();
    }
  });
});
