import { describe, expect, it } from 'vitest';
import { type ChatChunk, type TransportResponse, UpstreamStreamError } from '../../provider.ts';
import { geminiChunks } from './gemini.stream.ts';

const modelId = 'google/gemini-2.5-flash';

/** A body that yields these pieces of text as bytes, then ends or throws `failure`. */
function bodyOf(pieces: readonly string[], failure?: Error) {
  const state = { released: false };
  async function* bytes() {
    try {
      for (const piece of pieces) yield new TextEncoder().encode(piece);
      if (failure) throw failure;
    } finally {
      state.released = true;
    }
  }
  const body: TransportResponse['body'] = Object.assign(bytes(), {
    text: async () => pieces.join(''),
    json: async () => JSON.parse(pieces.join('')),
    dump: async () => {},
  });
  return { body, state };
}

const event = (payload: object) => `data: ${JSON.stringify(payload)}\r\n\r\n`;

async function collect(body: TransportResponse['body']) {
  const chunks: ChatChunk[] = [];
  try {
    for await (const chunk of geminiChunks(body, modelId)) chunks.push(chunk);
    return { chunks, error: undefined };
  } catch (error) {
    return { chunks, error };
  }
}

const text = (value: string, extra: object = {}) => ({
  candidates: [{ content: { role: 'model', parts: [{ text: value }] }, ...extra }],
  responseId: 'r1',
});

describe('geminiChunks', () => {
  it('streams a role chunk, the text, the finish reason, then the last usage alone', async () => {
    const { body } = bodyOf([
      event({ ...text('Hello'), usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 } }),
      event({
        ...text(' world', { finishReason: 'STOP' }),
        usageMetadata: {
          promptTokenCount: 4,
          candidatesTokenCount: 2,
          thoughtsTokenCount: 3,
          totalTokenCount: 9,
        },
      }),
    ]);
    const { chunks, error } = await collect(body);
    expect(error).toBeUndefined();
    const created = chunks[0]?.created;
    const base = { id: 'chatcmpl-r1', object: 'chat.completion.chunk', created, model: modelId };
    expect(chunks).toEqual([
      {
        ...base,
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
      },
      { ...base, choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: ' world' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: 4,
          completion_tokens: 5,
          total_tokens: 9,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 3 },
        },
      },
    ]);
  });

  it('sends each function call whole, numbered per choice, even when an event is split', async () => {
    const calls = event({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Checking.' },
              { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
            ],
          },
        },
      ],
      responseId: 'r2',
    });
    const { chunks, error } = await collect(
      bodyOf([
        calls.slice(0, 40),
        calls.slice(40),
        event({
          candidates: [
            {
              content: { parts: [{ functionCall: { id: 'fc_2', name: 'get_time', args: {} } }] },
              finishReason: 'STOP',
            },
          ],
        }),
      ]).body,
    );
    expect(error).toBeUndefined();
    expect(chunks.map((chunk) => chunk.choices[0] ?? chunk.usage)).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
      { index: 0, delta: { content: 'Checking.' }, finish_reason: null },
      {
        index: 0,
        delta: {
          tool_calls: [
            {
              index: 0,
              id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        finish_reason: null,
      },
      {
        index: 0,
        delta: {
          tool_calls: [
            {
              index: 1,
              id: 'fc_2',
              type: 'function',
              function: { name: 'get_time', arguments: '{}' },
            },
          ],
        },
        finish_reason: null,
      },
      { index: 0, delta: {}, finish_reason: 'tool_calls' },
      expect.objectContaining({ prompt_tokens: 0, completion_tokens: 0 }),
    ]);
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(['chatcmpl-r2']));
  });

  it('streams thoughts as reasoning, one text piece over many parts, then the signatures', async () => {
    const parts = (...list: object[]) => ({ candidates: [{ content: { parts: list } }] });
    const { chunks, error } = await collect(
      bodyOf([
        event(parts({ text: 'Weather ', thought: true })),
        event(parts({ text: 'first.', thought: true })),
        event(
          parts(
            {
              functionCall: { name: 'get_weather', args: { city: 'Paris' } },
              thoughtSignature: 'c2ln',
            },
            { functionCall: { name: 'get_time', args: {} } },
          ),
        ),
        event({
          candidates: [
            { content: { parts: [{ text: '', thoughtSignature: 'ZW5k' }] }, finishReason: 'STOP' },
          ],
        }),
      ]).body,
    );
    expect(error).toBeUndefined();
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
    const callId = deltas[3]?.tool_calls?.[0]?.id;
    expect(callId).toMatch(/^call_[0-9a-f]{24}__thought__c2ln$/);
    expect(deltas).toEqual([
      { role: 'assistant', content: '' },
      {
        reasoning: 'Weather ',
        reasoning_details: [
          { type: 'reasoning.text', text: 'Weather ', format: 'gemini', index: 0 },
        ],
      },
      {
        reasoning: 'first.',
        reasoning_details: [{ type: 'reasoning.text', text: 'first.', format: 'gemini', index: 0 }],
      },
      {
        tool_calls: [
          {
            index: 0,
            id: callId,
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
        reasoning_details: [
          { type: 'reasoning.encrypted', data: 'c2ln', id: callId, format: 'gemini', index: 1 },
        ],
      },
      {
        tool_calls: [
          {
            index: 1,
            id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
            type: 'function',
            function: { name: 'get_time', arguments: '{}' },
          },
        ],
      },
      {
        reasoning_details: [
          { type: 'reasoning.encrypted', data: 'ZW5k', id: null, format: 'gemini', index: 2 },
        ],
      },
      {},
    ]);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('keeps candidates apart by index, each with its own role chunk and finish', async () => {
    const { chunks, error } = await collect(
      bodyOf([
        event({
          candidates: [
            { content: { parts: [{ text: 'A1' }] } },
            { content: { parts: [{ text: 'B1' }] }, index: 1 },
          ],
        }),
        event({
          candidates: [
            { content: { parts: [{ text: 'B2' }] }, index: 1, finishReason: 'MAX_TOKENS' },
            {
              content: { parts: [{ text: 'A2', thought: true }, { text: '' }] },
              finishReason: 'STOP',
            },
          ],
        }),
      ]).body,
    );
    expect(error).toBeUndefined();
    expect(
      chunks.map(
        (chunk) =>
          chunk.choices[0] && [
            chunk.choices[0].index,
            chunk.choices[0].delta,
            chunk.choices[0].finish_reason,
          ],
      ),
    ).toEqual([
      [0, { role: 'assistant', content: '' }, null],
      [0, { content: 'A1' }, null],
      [1, { role: 'assistant', content: '' }, null],
      [1, { content: 'B1' }, null],
      [1, { content: 'B2' }, null],
      [1, {}, 'length'],
      [
        0,
        {
          reasoning: 'A2',
          reasoning_details: [{ type: 'reasoning.text', text: 'A2', format: 'gemini', index: 0 }],
        },
        null,
      ],
      [0, {}, 'stop'],
      undefined,
    ]);
  });

  it('throws when the stream ends before a candidate finished', async () => {
    const { chunks, error } = await collect(bodyOf([event(text('Half'))]).body);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Half' },
    ]);
    expect(error).toBeInstanceOf(UpstreamStreamError);
    expect((error as UpstreamStreamError).error).toEqual({
      message: 'The provider’s stream ended before it finished.',
      type: 'api_error',
      param: null,
      code: null,
    });
  });

  it('throws when the stream ends without any event', async () => {
    const { chunks, error } = await collect(bodyOf([]).body);
    expect(chunks).toEqual([]);
    expect(error).toBeInstanceOf(UpstreamStreamError);
  });

  it("throws Google's error event in OpenAI's shape", async () => {
    const { chunks, error } = await collect(
      bodyOf([
        event(text('Partial')),
        event({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }),
      ]).body,
    );
    expect(chunks).toHaveLength(2);
    expect((error as UpstreamStreamError).error).toEqual({
      message: 'The model is overloaded.',
      type: 'api_error',
      param: null,
      code: 'unavailable',
    });
  });

  it('throws a blocked prompt as invalid_prompt before any chunk', async () => {
    const { chunks, error } = await collect(
      bodyOf([event({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: {} })]).body,
    );
    expect(chunks).toEqual([]);
    expect((error as UpstreamStreamError).error).toMatchObject({
      code: 'invalid_prompt',
      type: 'invalid_request_error',
    });
  });

  it.each([
    ['data: {not json\r\n\r\n', 'The provider sent an event that is not JSON.'],
    [
      'data: {"candidates":{}}\r\n\r\n',
      'The provider sent an event that is not a GenerateContentResponse.',
    ],
  ])('throws on an event that is not a response: %s', async (raw, message) => {
    const { error } = await collect(bodyOf([raw]).body);
    expect((error as UpstreamStreamError).error.message).toBe(message);
  });

  it('throws a broken connection as an UpstreamStreamError', async () => {
    const { chunks, error } = await collect(
      bodyOf([event(text('Hel'))], new Error('other side closed')).body,
    );
    expect(chunks).toHaveLength(2);
    expect((error as UpstreamStreamError).error).toEqual({
      message: 'The connection to the provider broke mid-stream: other side closed',
      type: 'api_error',
      param: null,
      code: null,
    });
  });

  it('stops reading the body when the consumer stops early', async () => {
    const { body, state } = bodyOf([event(text('One')), event(text('Two')), event(text('Three'))]);
    for await (const chunk of geminiChunks(body, modelId)) {
      if (chunk.choices[0]?.delta.content === 'One') break;
    }
    expect(state.released).toBe(true);
  });
});
