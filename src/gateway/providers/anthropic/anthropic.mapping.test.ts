import type { EventSourceMessage } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../catalog.ts';
import type { ChatMessage, ChatRequest } from '../../chat.schemas.ts';
import type { OpenAiError } from '../../openai-errors.ts';
import { type ChatChunk, UpstreamStreamError } from '../../provider.ts';
import {
  DEFAULT_MAX_TOKENS,
  JSON_TOOL_NAME,
  type MessagesCall,
  toMessagesCall,
} from './anthropic.mapping.ts';
import {
  type AnswerContext,
  isMessage,
  openAiErrorOf,
  toChatCompletion,
} from './anthropic.response.ts';
import { anthropicChunks } from './anthropic.stream.ts';
import type { Message, StopReason } from './anthropic.types.ts';

const model: ModelConfig = {
  id: 'anthropic/claude-sonnet-4-5',
  provider: 'anthropic',
  upstream: 'claude-sonnet-4-5',
  vision: true,
  tools: true,
  jsonOutput: true,
  reasoning: false,
  contextWindow: 200_000,
  price: { input: 3, output: 15 },
};

type RequestFields = Omit<ChatRequest, 'model' | 'messages'> & { messages?: ChatMessage[] };

const chat = (fields: RequestFields = {}): ChatRequest => ({
  model: model.id,
  messages: [{ role: 'user', content: 'Hi' }],
  ...fields,
});

function mapped(fields: RequestFields): MessagesCall {
  const outcome = toMessagesCall(chat(fields), model);
  if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.failure)}`);
  return outcome.value;
}

function refused(fields: RequestFields): OpenAiError {
  const outcome = toMessagesCall(chat(fields), model);
  if (outcome.ok) throw new Error('mapped, not refused');
  expect(outcome.failure).toMatchObject({ kind: 'status', status: 400 });
  if (outcome.failure.kind !== 'status') throw new Error('not a status failure');
  return outcome.failure.error;
}

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

describe('toMessagesCall', () => {
  it('sends the upstream model, the default max_tokens and user text as a block', () => {
    expect(mapped({})).toEqual({
      body: {
        model: 'claude-sonnet-4-5',
        max_tokens: DEFAULT_MAX_TOKENS,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      },
      jsonTool: undefined,
    });
    expect(DEFAULT_MAX_TOKENS).toBe(4096);
  });

  it('joins system and developer messages, wherever they stand, into the top-level system', () => {
    const { body } = mapped({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'Answer in French.' },
            { type: 'text', text: 'No emoji.' },
          ],
        },
        { role: 'system', content: '   ' },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(body.system).toBe('Be brief.\n\nAnswer in French.\nNo emoji.');
    // With the system messages gone, the two user messages are one turn.
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi' },
          { type: 'text', text: 'Again' },
        ],
      },
    ]);
  });

  it('leaves system out when there is none', () => {
    expect('system' in mapped({}).body).toBe(false);
  });

  it('maps image parts: data URLs to base64 sources, http(s) URLs to URL sources', () => {
    const { body } = mapped({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'data:image/jpg;base64,/9j/4AAQ' } },
            {
              type: 'image_url',
              image_url: { url: 'https://example.com/cat.webp', detail: 'high' },
            },
          ],
        },
      ],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
          },
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.webp' } },
        ],
      },
    ]);
  });

  it.each([
    ['an image type Anthropic does not read', 'data:image/bmp;base64,Qk0='],
    ['a data URL that is not base64', 'data:image/svg+xml,<svg/>'],
    ['a URL of another scheme', 'ftp://example.com/cat.png'],
  ])('refuses %s, naming the part', (_, url) => {
    const error = refused({
      messages: [
        { role: 'system', content: 'Look.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'See' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    });
    expect(error).toMatchObject({
      type: 'invalid_request_error',
      param: 'messages[1].content[1].image_url.url',
      code: 'invalid_value',
    });
  });

  it('maps tool calls to tool_use blocks and tool messages to tool_result blocks in one user turn', () => {
    const { body } = mapped({
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome? And the time?' },
        {
          role: 'assistant',
          content: 'Let me check.',
          tool_calls: [
            {
              id: 'toolu_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'toolu_2',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
            },
            { id: 'toolu_3', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '18°C, sunny' },
        { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '24°C' }] },
        { role: 'tool', tool_call_id: 'toolu_3', content: '14:05' },
        { role: 'user', content: 'Thanks. Summarize.' },
      ],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'Weather in Paris and Rome? And the time?' }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          { type: 'tool_use', id: 'toolu_3', name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C, sunny' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            content: [{ type: 'text', text: '24°C' }],
          },
          { type: 'tool_result', tool_use_id: 'toolu_3', content: '14:05' },
          { type: 'text', text: 'Thanks. Summarize.' },
        ],
      },
    ]);
  });

  it('merges consecutive assistant messages and drops empty ones', () => {
    const { body } = mapped({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello.' },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot do that.' }] },
        { role: 'assistant', content: null },
        { role: 'user', content: '' },
        { role: 'user', content: 'Why?' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Hello.' },
          { type: 'text', text: 'I cannot do that.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Why?' }] },
    ]);
  });

  it.each([
    ['not JSON', '{"city": Paris}'],
    ['a JSON array', '["Paris"]'],
    ['a JSON string', '"Paris"'],
  ])('refuses tool-call arguments that are %s, as a value', (_, args) => {
    expect(
      refused({
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_9',
                type: 'function',
                function: { name: 'get_weather', arguments: args },
              },
            ],
          },
        ],
      }),
    ).toEqual({
      message:
        'The arguments of tool call call_9 are not a JSON object, which Anthropic models require.',
      type: 'invalid_request_error',
      param: 'messages[1].tool_calls[0].function.arguments',
      code: 'invalid_value',
    });
  });

  it('maps tools, with an empty object schema when parameters are absent', () => {
    const { body } = mapped({
      tools: [weatherTool, { type: 'function', function: { name: 'get_time', strict: true } }],
    });
    expect(body.tools).toEqual([
      {
        name: 'get_weather',
        description: 'The weather in a city.',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
      { name: 'get_time', input_schema: { type: 'object', properties: {} } },
    ]);
    expect('tool_choice' in body).toBe(false);
  });

  it.each([
    ['none', undefined, { type: 'none' }],
    ['auto', undefined, { type: 'auto' }],
    ['required', undefined, { type: 'any' }],
    [
      { type: 'function', function: { name: 'get_weather' } },
      undefined,
      { type: 'tool', name: 'get_weather' },
    ],
    [undefined, false, { type: 'auto', disable_parallel_tool_use: true }],
    ['required', false, { type: 'any', disable_parallel_tool_use: true }],
    ['none', false, { type: 'none' }],
    ['auto', true, { type: 'auto' }],
  ] as const)('maps tool_choice %j with parallel_tool_calls %j to %j', (choice, parallel, expected) => {
    const { body } = mapped({
      tools: [weatherTool],
      ...(choice === undefined ? {} : { tool_choice: choice }),
      ...(parallel === undefined ? {} : { parallel_tool_calls: parallel }),
    });
    expect(body.tool_choice).toEqual(expected);
  });

  it('sends no tools and no tool_choice without tools', () => {
    const { body } = mapped({ tool_choice: 'required', parallel_tool_calls: false });
    expect('tools' in body || 'tool_choice' in body).toBe(false);
  });

  it.each([
    [{ max_completion_tokens: 100, max_tokens: 200 }, 100],
    [{ max_completion_tokens: null, max_tokens: 200 }, 200],
    [{ max_tokens: null }, DEFAULT_MAX_TOKENS],
  ])('takes max_tokens from %j', (fields, expected) => {
    expect(mapped(fields).body.max_tokens).toBe(expected);
  });

  it('maps stop to stop_sequences', () => {
    expect(mapped({ stop: 'END' }).body.stop_sequences).toEqual(['END']);
    expect(mapped({ stop: ['a', 'b'] }).body.stop_sequences).toEqual(['a', 'b']);
    expect('stop_sequences' in mapped({ stop: null }).body).toBe(false);
  });

  it('clamps temperature to Anthropic’s 0..1 and prefers it to top_p', () => {
    expect(mapped({ temperature: 1.7 }).body.temperature).toBe(1);
    expect(mapped({ temperature: 0.2 }).body.temperature).toBe(0.2);
    expect(mapped({ temperature: 0 }).body.temperature).toBe(0);
    const both = mapped({ temperature: 0.5, top_p: 0.9 }).body;
    expect([both.temperature, 'top_p' in both]).toEqual([0.5, false]);
    const topP = mapped({ top_p: 0.9, temperature: null }).body;
    expect([topP.top_p, 'temperature' in topP]).toEqual([0.9, false]);
  });

  it('sends user as metadata.user_id', () => {
    expect(mapped({ user: 'user-42' }).body.metadata).toEqual({ user_id: 'user-42' });
  });

  it('refuses n above 1, and takes n = 1', () => {
    expect(refused({ n: 2 })).toEqual({
      message: 'Anthropic models give one choice per request: `n` must be 1.',
      type: 'invalid_request_error',
      param: 'n',
      code: 'unsupported_value',
    });
    expect(mapped({ n: 1 }).body.messages).toHaveLength(1);
  });

  it('turns a json_schema response format into a forced tool', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } } };
    expect(
      mapped({
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'place', description: 'A place.', schema, strict: true },
        },
      }),
    ).toEqual({
      body: {
        model: 'claude-sonnet-4-5',
        max_tokens: DEFAULT_MAX_TOKENS,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
        tools: [{ name: JSON_TOOL_NAME, description: 'A place.', input_schema: schema }],
        tool_choice: { type: 'tool', name: JSON_TOOL_NAME },
      },
      jsonTool: JSON_TOOL_NAME,
    });
  });

  it('turns json_object into a forced tool taking any object', () => {
    const { body, jsonTool } = mapped({ response_format: { type: 'json_object' } });
    expect(jsonTool).toBe('json_response');
    expect(body.tools).toEqual([
      {
        name: 'json_response',
        description:
          'Give your whole answer as the input of this tool: a JSON object, and nothing else.',
        input_schema: { type: 'object' },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'json_response' });
  });

  it('lets the model call tools or the JSON tool when both are offered', () => {
    const json = { response_format: { type: 'json_object' as const }, tools: [weatherTool] };
    const auto = mapped(json).body;
    expect(auto.tools?.map((tool) => tool.name)).toEqual(['get_weather', 'json_response']);
    expect(auto.tool_choice).toEqual({ type: 'any' });
    expect(mapped({ ...json, tool_choice: 'none' }).body.tool_choice).toEqual({
      type: 'tool',
      name: 'json_response',
    });
    expect(
      mapped({ ...json, tool_choice: { type: 'function', function: { name: 'get_weather' } } }).body
        .tool_choice,
    ).toEqual({ type: 'tool', name: 'get_weather' });
  });

  it('thinks only on a reasoning model asked for an effort other than none', () => {
    const reasoning = { ...model, reasoning: true };
    const call = (fields: RequestFields, on = reasoning) => {
      const outcome = toMessagesCall(chat(fields), on);
      if (!outcome.ok) throw new Error('refused');
      return outcome.value.body;
    };
    expect(call({ reasoning_effort: 'medium' })).toMatchObject({
      max_tokens: 8192 + DEFAULT_MAX_TOKENS,
      thinking: { type: 'enabled', budget_tokens: 8192 },
    });
    expect(call({ reasoning_effort: 'minimal', max_tokens: 100 })).toMatchObject({
      max_tokens: 1124,
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    for (const body of [
      call({ reasoning_effort: 'none' }),
      call({}),
      call({ reasoning_effort: 'high' }, model),
    ]) {
      expect(body.thinking).toBeUndefined();
      expect(body.max_tokens).toBe(DEFAULT_MAX_TOKENS);
    }
  });

  it('sends anthropic thinking back first in its turn, unsigned and foreign pieces dropped', () => {
    const outcome = toMessagesCall(
      chat({
        reasoning_effort: 'low',
        messages: [
          { role: 'user', content: 'Paris?' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              {
                id: 'toolu_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{}' },
              },
            ],
            reasoning_details: [
              { type: 'reasoning.text', text: 'Unsigned.', format: 'anthropic' },
              { type: 'reasoning.text', text: 'Gemini.', signature: 'g', format: 'gemini' },
              { type: 'reasoning.summary', summary: 'Summary.', format: 'openai' },
              { type: 'reasoning.encrypted', data: 'EmwKsealed', format: 'anthropic' },
              { type: 'reasoning.text', text: 'Ask.', signature: 'c2ln', format: 'anthropic' },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: '22' },
        ],
      }),
      { ...model, reasoning: true },
    );
    if (!outcome.ok) throw new Error('refused');
    expect(outcome.value.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(outcome.value.body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'redacted_thinking', data: 'EmwKsealed' },
        { type: 'thinking', thinking: 'Ask.', signature: 'c2ln' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
      ],
    });
  });

  it('ignores a text response format, and refuses a tool taking the JSON tool’s name', () => {
    expect(mapped({ response_format: { type: 'text' } }).jsonTool).toBeUndefined();
    expect(
      refused({
        response_format: { type: 'json_object' },
        tools: [{ type: 'function', function: { name: 'json_response' } }],
      }),
    ).toMatchObject({ type: 'invalid_request_error', param: 'tools' });
  });
});

const context: AnswerContext = { model: model.id, created: 1_700_000_000, jsonTool: undefined };

const message = (fields: Partial<Message>): Message => ({
  id: 'msg_01abc',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5 },
  ...fields,
});

describe('toChatCompletion', () => {
  it('maps text blocks to the content, with the catalog model and Anthropic’s id', () => {
    expect(
      toChatCompletion(
        message({
          content: [
            { type: 'text', text: 'Hello' },
            { type: 'text', text: ' there.' },
          ],
          usage: {
            input_tokens: 10,
            output_tokens: 5,
            cache_creation_input_tokens: 20,
            cache_read_input_tokens: 70,
          },
        }),
        context,
      ),
    ).toEqual({
      id: 'msg_01abc',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'anthropic/claude-sonnet-4-5',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello there.', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 5,
        total_tokens: 105,
        prompt_tokens_details: { cached_tokens: 70 },
      },
    });
  });

  it('maps tool_use blocks to tool calls with their input as JSON text', () => {
    const completion = toChatCompletion(
      message({
        stop_reason: 'tool_use',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
        ],
      }),
      context,
    );
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        refusal: null,
        tool_calls: [
          {
            id: 'toolu_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          { id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    });
  });

  it('gives the JSON tool’s input as content, finished by stop', () => {
    const completion = toChatCompletion(
      message({
        stop_reason: 'tool_use',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'json_response', input: { a: 1 } }],
      }),
      { ...context, jsonTool: 'json_response' },
    );
    expect(completion.choices[0]?.message).toEqual({
      role: 'assistant',
      content: '{"a":1}',
      refusal: null,
    });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('gives thinking as reasoning and, with redacted thinking, as numbered details', () => {
    const completion = toChatCompletion(
      message({
        content: [
          { type: 'thinking', thinking: 'First, ', signature: 'c2lnMQ==' },
          { type: 'redacted_thinking', data: 'EmwKsealed' },
          { type: 'thinking', thinking: 'then.', signature: 'c2lnMg==' },
          { type: 'text', text: 'Done.' },
        ],
        usage: { input_tokens: 10, output_tokens: 2 },
      }),
      context,
    );
    expect(completion.choices[0]?.message).toEqual({
      role: 'assistant',
      content: 'Done.',
      refusal: null,
      reasoning: 'First, then.',
      reasoning_details: [
        {
          type: 'reasoning.text',
          text: 'First, ',
          signature: 'c2lnMQ==',
          format: 'anthropic',
          index: 0,
        },
        { type: 'reasoning.encrypted', data: 'EmwKsealed', format: 'anthropic', index: 1 },
        {
          type: 'reasoning.text',
          text: 'then.',
          signature: 'c2lnMg==',
          format: 'anthropic',
          index: 2,
        },
      ],
    });
    // ceil("First, then.".length / 4) is 3, but never more than the output.
    expect(completion.usage.completion_tokens_details).toEqual({ reasoning_tokens: 2 });
    expect(completion.usage.completion_tokens).toBe(2);
  });

  it('skips blocks it does not translate, and answers empty content as ""', () => {
    const search = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} };
    const completion = toChatCompletion(
      message({ content: [search as unknown as Message['content'][number]] }),
      context,
    );
    expect(completion.choices[0]?.message).toEqual({
      role: 'assistant',
      content: '',
      refusal: null,
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'stop'],
  ] as const)('maps stop_reason %s to finish_reason %s', (reason: StopReason, finish) => {
    const completion = toChatCompletion(
      message({ stop_reason: reason, content: [{ type: 'text', text: 'x' }] }),
      context,
    );
    expect(completion.choices[0]?.finish_reason).toBe(finish);
  });

  it('recognizes a message body', () => {
    expect(isMessage(message({}))).toBe(true);
    expect(isMessage({ ...message({}), usage: {} })).toBe(false);
    expect(isMessage({ type: 'error', error: { type: 'api_error', message: 'x' } })).toBe(false);
    expect(isMessage('message')).toBe(false);
  });
});

describe('openAiErrorOf', () => {
  const body = (type: string, text = 'What went wrong.') => ({
    type: 'error',
    error: { type, message: text },
    request_id: 'req_1',
  });

  it.each([
    [400, 'invalid_request_error', 'invalid_request_error', null, null],
    [401, 'authentication_error', 'authentication_error', 'invalid_api_key', null],
    [402, 'billing_error', 'insufficient_quota', 'insufficient_quota', null],
    [403, 'permission_error', 'permission_error', null, null],
    [404, 'not_found_error', 'invalid_request_error', 'model_not_found', 'model'],
    [413, 'request_too_large', 'invalid_request_error', 'request_too_large', null],
    [429, 'rate_limit_error', 'rate_limit_error', 'rate_limit_exceeded', null],
    [500, 'api_error', 'api_error', null, null],
    [504, 'timeout_error', 'api_error', 'timeout_error', null],
    [529, 'overloaded_error', 'api_error', 'overloaded_error', null],
  ])('maps %i %s', (status, anthropicType, type, code, param) => {
    expect(openAiErrorOf(status, body(anthropicType))).toEqual({
      message: 'What went wrong.',
      type,
      param,
      code,
    });
  });

  it('keeps an unknown type as the code, typed by the status', () => {
    expect(openAiErrorOf(409, body('conflict_error'))).toEqual({
      message: 'What went wrong.',
      type: 'invalid_request_error',
      param: null,
      code: 'conflict_error',
    });
  });

  it('describes a body in no known shape by its status', () => {
    expect(openAiErrorOf(502, '<html>Bad gateway</html>')).toEqual({
      message: 'The provider answered with status 502.',
      type: 'api_error',
      param: null,
      code: null,
    });
    expect(openAiErrorOf(429, { error: 'slow down' }).type).toBe('rate_limit_error');
  });
});

async function* sse(...payloads: (object | string)[]): AsyncGenerator<EventSourceMessage> {
  for (const payload of payloads) {
    if (typeof payload === 'string') yield { data: payload };
    else yield { event: (payload as { type: string }).type, data: JSON.stringify(payload) };
  }
}

async function collect(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const start = (usage: object = { input_tokens: 12, output_tokens: 1 }) => ({
  type: 'message_start',
  message: { ...message({ content: [], stop_reason: null }), usage },
});
const stop = { type: 'message_stop' };
const delta = (reason: StopReason, usage: object = { output_tokens: 7 }) => ({
  type: 'message_delta',
  delta: { stop_reason: reason, stop_sequence: null },
  usage,
});
const blockStart = (index: number, block: object) => ({
  type: 'content_block_start',
  index,
  content_block: block,
});
const text = (index: number, piece: string) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'text_delta', text: piece },
});
const json = (index: number, piece: string) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json: piece },
});
const blockStop = (index: number) => ({ type: 'content_block_stop', index });

/** The chunk skeleton every chunk shares. */
const base = {
  id: 'msg_01abc',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'anthropic/claude-sonnet-4-5',
};
const choice = (delta: object, finish: string | null = null) => ({
  ...base,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});

describe('anthropicChunks', () => {
  it('maps a text stream: role first, content pieces, finish reason, then usage', async () => {
    const chunks = await collect(
      anthropicChunks(
        sse(
          start(),
          blockStart(0, { type: 'text', text: '' }),
          { type: 'ping' },
          text(0, 'Hello'),
          text(0, ' there.'),
          blockStop(0),
          delta('end_turn'),
          stop,
        ),
        context,
      ),
    );
    expect(chunks).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ content: 'Hello' }),
      choice({ content: ' there.' }),
      choice({}, 'stop'),
      {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: 12,
          completion_tokens: 7,
          total_tokens: 19,
          prompt_tokens_details: { cached_tokens: 0 },
        },
      },
    ]);
  });

  it('indexes tool calls among the calls, not the blocks, and gives {} to a call without input', async () => {
    const chunks = await collect(
      anthropicChunks(
        sse(
          start(),
          blockStart(0, { type: 'text', text: '' }),
          text(0, 'Checking.'),
          blockStop(0),
          blockStart(1, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }),
          json(1, ''),
          json(1, '{"city":'),
          json(1, '"Paris"}'),
          blockStop(1),
          blockStart(2, { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} }),
          blockStop(2),
          delta('tool_use'),
          stop,
        ),
        context,
      ),
    );
    expect(chunks.slice(0, -1)).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ content: 'Checking.' }),
      choice({
        tool_calls: [
          {
            index: 0,
            id: 'toolu_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      choice({
        tool_calls: [
          {
            index: 1,
            id: 'toolu_2',
            type: 'function',
            function: { name: 'get_time', arguments: '' },
          },
        ],
      }),
      choice({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }),
      choice({}, 'tool_calls'),
    ]);
  });

  it('streams the JSON tool’s input as content, finished by stop', async () => {
    const chunks = await collect(
      anthropicChunks(
        sse(
          start(),
          blockStart(0, { type: 'tool_use', id: 'toolu_1', name: 'json_response', input: {} }),
          json(0, '{"a":'),
          json(0, '1}'),
          blockStop(0),
          delta('tool_use'),
          stop,
        ),
        { ...context, jsonTool: 'json_response' },
      ),
    );
    expect(chunks.slice(0, -1)).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ content: '{"a":' }),
      choice({ content: '1}' }),
      choice({}, 'stop'),
    ]);
  });

  it('counts cache tokens, and takes message_delta’s input counts when it repeats them', async () => {
    const chunks = await collect(
      anthropicChunks(
        sse(
          start({ input_tokens: 3, cache_read_input_tokens: 50, output_tokens: 1 }),
          delta('max_tokens', {
            input_tokens: 4,
            cache_creation_input_tokens: 10,
            cache_read_input_tokens: null,
            output_tokens: 9,
          }),
          stop,
        ),
        context,
      ),
    );
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('length');
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 64,
      completion_tokens: 9,
      total_tokens: 73,
      prompt_tokens_details: { cached_tokens: 50 },
    });
  });

  it('streams thinking as reasoning pieces, the signature last, a redacted block whole', async () => {
    const thinking = (index: number, piece: string) => ({
      type: 'content_block_delta',
      index,
      delta: { type: 'thinking_delta', thinking: piece },
    });
    const chunks = await collect(
      anthropicChunks(
        sse(
          start(),
          blockStart(0, { type: 'redacted_thinking', data: 'EmwKsealed' }),
          blockStop(0),
          blockStart(1, { type: 'thinking', thinking: '', signature: '' }),
          thinking(1, 'Two and '),
          thinking(1, 'two.'),
          {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'signature_delta', signature: 'c2lnbmVk' },
          },
          blockStop(1),
          blockStart(2, { type: 'text', text: '' }),
          text(2, 'Four.'),
          blockStop(2),
          delta('end_turn', { output_tokens: 40 }),
          stop,
        ),
        context,
      ),
    );
    const piece = (fields: object) => ({ type: 'reasoning.text', format: 'anthropic', ...fields });
    expect(chunks).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({
        reasoning_details: [
          { type: 'reasoning.encrypted', data: 'EmwKsealed', format: 'anthropic', index: 0 },
        ],
      }),
      choice({ reasoning: 'Two and ', reasoning_details: [piece({ text: 'Two and ', index: 1 })] }),
      choice({ reasoning: 'two.', reasoning_details: [piece({ text: 'two.', index: 1 })] }),
      choice({ reasoning_details: [piece({ text: '', signature: 'c2lnbmVk', index: 1 })] }),
      choice({ content: 'Four.' }),
      choice({}, 'stop'),
      {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: 12,
          completion_tokens: 40,
          total_tokens: 52,
          prompt_tokens_details: { cached_tokens: 0 },
          // ceil("Two and two.".length / 4)
          completion_tokens_details: { reasoning_tokens: 3 },
        },
      },
    ]);
  });

  it('skips blocks and events it does not translate', async () => {
    const chunks = await collect(
      anthropicChunks(
        sse(
          start(),
          { type: 'some_future_event', detail: 1 },
          blockStart(0, {
            type: 'server_tool_use',
            id: 'srvtoolu_1',
            name: 'web_search',
            input: {},
          }),
          json(0, '{"query": "x"}'),
          blockStop(0),
          blockStart(1, { type: 'text', text: '' }),
          text(1, 'Yes.'),
          blockStop(1),
          delta('end_turn'),
          stop,
        ),
        context,
      ),
    );
    expect(chunks.slice(0, -1)).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ content: 'Yes.' }),
      choice({}, 'stop'),
    ]);
  });

  async function failure(stream: AsyncIterable<ChatChunk>): Promise<UpstreamStreamError> {
    const error = await collect(stream).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamStreamError);
    return error as UpstreamStreamError;
  }

  it('throws an error event in OpenAI’s shape', async () => {
    const error = await failure(
      anthropicChunks(
        sse(start(), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
        context,
      ),
    );
    expect(error.error).toEqual({
      message: 'Overloaded',
      type: 'api_error',
      param: null,
      code: 'overloaded_error',
    });
  });

  it('throws when the stream ends before message_stop', async () => {
    const error = await failure(
      anthropicChunks(sse(start(), blockStart(0, { type: 'text', text: '' })), context),
    );
    expect(error.error).toMatchObject({
      type: 'api_error',
      message: 'The provider’s stream ended before message_stop.',
    });
  });

  it('throws on an event that is not JSON, or content before message_start', async () => {
    expect((await failure(anthropicChunks(sse(start(), 'oops'), context))).error.message).toBe(
      'The provider sent an event that is not JSON.',
    );
    expect((await failure(anthropicChunks(sse(text(0, 'x')), context))).error.message).toBe(
      'The provider’s stream did not begin with message_start.',
    );
  });
});
