/**
 * `/v1` as the official `openai` package meets it, over each provider kind: the same calls,
 * answered by an OpenAI, an Anthropic and a Gemini simulator, must look alike to the client,
 * and each provider must receive the request in its own wire format.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type ClientsGateway,
  costOf,
  KINDS,
  kindsBefore,
  PNG_BASE64,
  type ProviderKind,
  routeExplanation,
  type ScriptedCall,
  startClientsGateway,
  UNREACHABLE_MODEL,
  UPSTREAM_PNG,
} from '../testing/gateway-clients.ts';

let setup: ClientsGateway;

beforeAll(async () => {
  setup = await startClientsGateway();
});
afterAll(async () => {
  await setup?.close();
});

const client = (maxRetries = 0) =>
  new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: setup.gateway.apiKey, maxRetries });

const richMessages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'Answer in one word.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What colour is this pixel?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    ],
  },
];

const weatherParameters = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};
const weatherTool: OpenAI.ChatCompletionFunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The current weather in a city',
    parameters: weatherParameters,
  },
};
const weatherCalls: ScriptedCall[] = [
  { id: 'call_paris', name: 'get_weather', args: { city: 'Paris' } },
  { id: 'call_oslo', name: 'get_weather', args: { city: 'Oslo' } },
];
/** The calls as OpenAI's tool calls: arguments as the JSON text of the scripted object. */
const weatherToolCalls = weatherCalls.map((call) => ({
  id: call.id,
  type: 'function' as const,
  function: { name: call.name, arguments: JSON.stringify(call.args) },
}));
const toolResults: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'user', content: 'Weather in Paris and Oslo?' },
  { role: 'assistant', content: null, tool_calls: weatherToolCalls },
  { role: 'tool', tool_call_id: 'call_paris', content: '{"celsius":18}' },
  { role: 'tool', tool_call_id: 'call_oslo', content: 'Light snow' },
];

const forecastSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

/** What each provider must receive, in its own wire format, and what its errors become. */
const wire: Record<
  ProviderKind,
  {
    /** The rich request (system, text and image, limits) as the provider receives it. */
    readonly rich: { url: string; headers: Record<string, string>; body: object };
    /** Where the tool definitions sit in the provider's body. */
    readonly tools: object;
    /** The follow-up with the assistant's tool calls and two results. */
    readonly toolResults: object;
    /** Where the JSON schema of `response_format` sits. */
    readonly jsonSchema: object;
    /** The provider's default 400, in OpenAI's shape. */
    readonly badRequest: object;
    /** The provider's mid-stream error, in OpenAI's shape. */
    readonly midStream: object;
    /** The `code` of the provider's 429 in OpenAI's shape. */
    readonly rateLimitCode: string;
  }
> = {
  openai: {
    rich: {
      url: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-openai-sim' },
      body: {
        model: 'gpt-4.1',
        messages: richMessages,
        max_completion_tokens: 64,
        stop: ['END'],
        temperature: 0.3,
        stream: false,
      },
    },
    tools: { tools: [weatherTool] },
    toolResults: { messages: toolResults },
    jsonSchema: {
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'forecast',
          description: 'The forecast for one city',
          schema: forecastSchema,
          strict: true,
        },
      },
    },
    badRequest: {
      message: 'Simulated error 400',
      type: 'invalid_request_error',
      param: null,
      code: null,
    },
    midStream: {
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      param: null,
      code: null,
    },
    rateLimitCode: 'rate_limit_exceeded',
  },
  anthropic: {
    rich: {
      url: '/v1/messages',
      headers: { 'x-api-key': 'sk-ant-sim', 'anthropic-version': '2023-06-01' },
      body: {
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        system: 'Answer in one word.',
        messages: [
          {
            role: 'user',
            content: [{ type: 'text', text: 'What colour is this pixel?' }, UPSTREAM_PNG.anthropic],
          },
        ],
        stop_sequences: ['END'],
        temperature: 0.3,
      },
    },
    tools: {
      tools: [
        {
          name: 'get_weather',
          description: 'The current weather in a city',
          input_schema: weatherParameters,
        },
      ],
    },
    toolResults: {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Oslo?' }] },
        {
          role: 'assistant',
          content: weatherCalls.map((call) => ({
            type: 'tool_use',
            id: call.id,
            name: call.name,
            input: call.args,
          })),
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_paris', content: '{"celsius":18}' },
            { type: 'tool_result', tool_use_id: 'call_oslo', content: 'Light snow' },
          ],
        },
      ],
    },
    // A forced tool whose input is the answer.
    jsonSchema: {
      tools: [
        {
          name: 'json_response',
          description: 'The forecast for one city',
          input_schema: forecastSchema,
        },
      ],
      tool_choice: { type: 'tool', name: 'json_response' },
    },
    badRequest: {
      message: 'Simulated error 400',
      type: 'invalid_request_error',
      param: null,
      code: null,
    },
    midStream: { message: 'Overloaded', type: 'api_error', param: null, code: 'overloaded_error' },
    rateLimitCode: 'rate_limit_exceeded',
  },
  gemini: {
    rich: {
      url: '/v1beta/models/gemini-2.5-flash:generateContent',
      headers: { 'x-goog-api-key': 'gemini-sim-key' },
      body: {
        contents: [
          {
            role: 'user',
            parts: [{ text: 'What colour is this pixel?' }, UPSTREAM_PNG.gemini],
          },
        ],
        systemInstruction: { parts: [{ text: 'Answer in one word.' }] },
        generationConfig: { stopSequences: ['END'], maxOutputTokens: 64, temperature: 0.3 },
      },
    },
    tools: {
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'The current weather in a city',
              parametersJsonSchema: weatherParameters,
            },
          ],
        },
      ],
    },
    toolResults: {
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris and Oslo?' }] },
        {
          role: 'model',
          parts: weatherCalls.map((call) => ({
            functionCall: { name: call.name, args: call.args },
          })),
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { celsius: 18 } } },
            { functionResponse: { name: 'get_weather', response: { result: 'Light snow' } } },
          ],
        },
      ],
    },
    jsonSchema: {
      generationConfig: {
        responseMimeType: 'application/json',
        responseJsonSchema: forecastSchema,
      },
    },
    badRequest: {
      message: 'Request contains an invalid argument.',
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_argument',
    },
    midStream: {
      message:
        'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
      type: 'api_error',
      param: null,
      code: 'internal',
    },
    rateLimitCode: 'resource_exhausted',
  },
};

describe.each(KINDS)('through a provider of kind %s', (kindName) => {
  const kind = () => setup.kinds[kindName];
  const lastUpstream = () => kind().requests.at(-1);

  describe('a whole completion', () => {
    test('answers under the catalog id with the provider’s usage; the rich request is translated', async () => {
      kind().text('Red', { prompt: 1503, completion: 1 });
      const answer = await client().chat.completions.create({
        model: kind().model,
        messages: richMessages,
        max_completion_tokens: 64,
        stop: ['END'],
        temperature: 0.3,
      });
      expect(answer).toMatchObject({
        object: 'chat.completion',
        model: kind().model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Red' },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 1503, completion_tokens: 1, total_tokens: 1504 },
      });
      const sent = lastUpstream();
      expect(sent?.url).toBe(wire[kindName].rich.url);
      expect(sent?.headers).toMatchObject(wire[kindName].rich.headers);
      expect(sent?.body).toEqual(wire[kindName].rich.body);
    });
  });

  describe('a streamed completion', () => {
    test('role first, the text exactly, finish_reason last; no usage chunk unless asked', async () => {
      const text = 'Red, like a ripe tomato.';
      kind().text(text, { prompt: 40, completion: 7 });
      const stream = await client().chat.completions.create({
        model: kind().model,
        messages: [{ role: 'user', content: 'What colour is a tomato?' }],
        stream: true,
      });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);

      expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(text);
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
      expect(chunks.slice(0, -1).map((c) => c.choices[0]?.finish_reason)).not.toContain('stop');
      expect(chunks.filter((c) => c.choices.length === 0)).toEqual([]);
      for (const chunk of chunks) {
        expect(chunk.model).toBe(kind().model);
        expect(chunk.id).toBe(chunks[0]?.id);
        expect(chunk).not.toHaveProperty('usage');
      }
    });

    test('with include_usage, a last chunk with no choices carries the provider’s usage', async () => {
      const text = 'Green, when unripe.';
      kind().text(text, { prompt: 41, completion: 5 });
      const stream = await client().chat.completions.create({
        model: kind().model,
        messages: [{ role: 'user', content: 'And before it ripens?' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);

      const choiceChunks = chunks.slice(0, -1);
      expect(choiceChunks[0]?.choices[0]?.delta.role).toBe('assistant');
      expect(choiceChunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(text);
      expect(choiceChunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
      for (const chunk of choiceChunks) expect(chunk.usage).toBeNull();
      expect(chunks.at(-1)).toMatchObject({
        model: kind().model,
        choices: [],
        usage: { prompt_tokens: 41, completion_tokens: 5, total_tokens: 46 },
      });
    });
  });

  describe('tools', () => {
    test('two parallel calls come back whole, ids, names and arguments exact', async () => {
      kind().toolCalls(weatherCalls);
      const answer = await client().chat.completions.create({
        model: kind().model,
        messages: [{ role: 'user', content: 'Weather in Paris and Oslo?' }],
        tools: [weatherTool],
      });
      expect(answer.choices[0]?.finish_reason).toBe('tool_calls');
      expect(answer.choices[0]?.message.content).toBeNull();
      expect(answer.choices[0]?.message.tool_calls).toEqual(weatherToolCalls);
      expect(lastUpstream()?.body).toMatchObject(wire[kindName].tools);
    });

    test('streamed, the SDK’s stream helper rebuilds both calls', async () => {
      kind().toolCalls(weatherCalls);
      const final = await client()
        .chat.completions.stream({
          model: kind().model,
          messages: [{ role: 'user', content: 'Weather in Paris and Oslo?' }],
          tools: [weatherTool],
        })
        .finalChatCompletion();
      expect(final.model).toBe(kind().model);
      expect(final.choices[0]?.finish_reason).toBe('tool_calls');
      expect(final.choices[0]?.message.tool_calls).toEqual(weatherToolCalls);
    });

    test('the calls and their results sent back are translated for the provider', async () => {
      kind().text('Paris is mild; Oslo has light snow.');
      const answer = await client().chat.completions.create({
        model: kind().model,
        messages: toolResults,
        tools: [weatherTool],
      });
      expect(answer.choices[0]?.message.content).toBe('Paris is mild; Oslo has light snow.');
      expect(answer.choices[0]?.finish_reason).toBe('stop');
      expect(lastUpstream()?.body).toMatchObject(wire[kindName].toolResults);
    });
  });

  describe('response_format', () => {
    test('json_schema: the content is the JSON text, the schema where the provider takes it', async () => {
      kind().json({ city: 'Paris', celsius: 18 });
      const answer = await client().chat.completions.create({
        model: kind().model,
        messages: [{ role: 'user', content: 'The forecast for Paris, as JSON.' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'forecast',
            description: 'The forecast for one city',
            schema: forecastSchema,
            strict: true,
          },
        },
      });
      expect(answer.choices[0]?.message.content).toBe('{"city":"Paris","celsius":18}');
      expect(answer.choices[0]?.message.tool_calls).toBeUndefined();
      expect(answer.choices[0]?.finish_reason).toBe('stop');
      expect(lastUpstream()?.body).toMatchObject(wire[kindName].jsonSchema);
    });

    test('json_schema streamed: the content deltas join to the JSON text', async () => {
      kind().json({ city: 'Oslo', celsius: -3 });
      const final = await client()
        .chat.completions.stream({
          model: kind().model,
          messages: [{ role: 'user', content: 'The forecast for Oslo, as JSON.' }],
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'forecast', schema: forecastSchema, strict: true },
          },
        })
        .finalChatCompletion();
      expect(final.choices[0]?.message.content).toBe('{"city":"Oslo","celsius":-3}');
      expect(final.choices[0]?.message.tool_calls ?? []).toEqual([]);
      expect(final.choices[0]?.finish_reason).toBe('stop');
    });
  });

  describe('errors', () => {
    test('the provider’s 429 says when to retry, and the SDK’s retry succeeds', async () => {
      kind().error(429, { 'retry-after': '1' });
      const refused = await client()
        .chat.completions.create({
          model: kind().model,
          messages: [{ role: 'user', content: 'Hello' }],
        })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
      const rateLimited = refused as InstanceType<typeof OpenAI.RateLimitError>;
      expect(rateLimited.code).toBe(wire[kindName].rateLimitCode);
      expect(rateLimited.headers.get('x-should-retry')).toBe('true');
      expect(rateLimited.headers.get('retry-after')).toBe('1');
      expect(rateLimited.headers.get('retry-after-ms')).toBe('1000');

      kind().error(429, { 'retry-after': '1' });
      kind().text('Second time lucky');
      const before = kind().requests.length;
      const answer = await client(1).chat.completions.create({
        model: kind().model,
        messages: [{ role: 'user', content: 'Hello' }],
      });
      expect(answer.choices[0]?.message.content).toBe('Second time lucky');
      expect(kind().requests.length - before).toBe(2);
    });

    test('the provider’s 400 is OpenAI’s BadRequestError, not retried', async () => {
      kind().error(400);
      const before = kind().requests.length;
      const refused = await client(2)
        .chat.completions.create({
          model: kind().model,
          messages: [{ role: 'user', content: 'Hello' }],
        })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      const badRequest = refused as InstanceType<typeof OpenAI.BadRequestError>;
      expect(badRequest.status).toBe(400);
      expect(badRequest.error).toEqual(wire[kindName].badRequest);
      expect(badRequest.headers.get('x-should-retry')).toBe('false');
      expect(kind().requests.length - before).toBe(1);
    });

    test('a provider failing mid-stream: the SDK throws APIError after the partial text', async () => {
      kind().failMidStream('Partial answer');
      const stream = await client().chat.completions.create({
        model: kind().model,
        messages: [{ role: 'user', content: 'Hello' }],
        stream: true,
      });
      const received: string[] = [];
      const failure = await (async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      })().catch((error: unknown) => error);
      expect(received.join('')).toBe('Partial answer');
      expect(failure).toBeInstanceOf(OpenAI.APIError);
      expect((failure as InstanceType<typeof OpenAI.APIError>).error).toEqual(
        wire[kindName].midStream,
      );
    });
  });

  describe('the router', () => {
    test('auto passes over the failing models; the one that answered is named and charged', async () => {
      const earlier = kindsBefore(kindName).map((name) => setup.kinds[name]);
      const route = routeExplanation(kind(), earlier);
      const triedBefore = earlier.map((other) => other.requests.length);
      // Token counts no other case uses, to find these calls among the recorded ones.
      const wholeUsage = { prompt: 1111, completion: 11 };
      const streamUsage = { prompt: 2222, completion: 22 };

      for (const other of earlier) other.outage();
      kind().text('Routed whole', wholeUsage);
      const { data: whole, response: wholeResponse } = await client()
        .chat.completions.create({
          model: 'auto',
          messages: [{ role: 'user', content: 'Who answers?' }],
        })
        .withResponse();
      expect(whole.model).toBe(kind().model);
      expect(whole.choices[0]?.message.content).toBe('Routed whole');
      expect(wholeResponse.headers.get('x-mnemo-model')).toBe(kind().model);
      expect(wholeResponse.headers.get('x-mnemo-provider')).toBe(kind().provider);
      expect(wholeResponse.headers.get('x-mnemo-route')).toMatch(route);

      for (const other of earlier) other.outage();
      kind().text('Routed stream', streamUsage);
      const { data: stream, response: streamResponse } = await client()
        .chat.completions.create({
          model: 'auto',
          messages: [{ role: 'user', content: 'Who answers now?' }],
          stream: true,
          stream_options: { include_usage: true },
        })
        .withResponse();
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Routed stream');
      expect(new Set(chunks.map((c) => c.model))).toEqual(new Set([kind().model]));
      expect(chunks.at(-1)?.usage).toMatchObject({
        prompt_tokens: streamUsage.prompt,
        completion_tokens: streamUsage.completion,
      });
      expect(streamResponse.headers.get('x-mnemo-model')).toBe(kind().model);
      expect(streamResponse.headers.get('x-mnemo-route')).toMatch(route);

      // Each failing provider was really asked, once per call.
      expect(earlier.map((other) => other.requests.length)).toEqual(
        triedBefore.map((count) => count + 2),
      );

      const calls = await setup.gateway.calls((recorded) =>
        [wholeUsage, streamUsage].every((usage) =>
          recorded.some(
            (call) => call.model === kind().model && call.promptTokens === usage.prompt,
          ),
        ),
      );
      for (const usage of [wholeUsage, streamUsage]) {
        expect(calls).toContainEqual({
          model: kind().model,
          provider: kind().provider,
          promptTokens: usage.prompt,
          completionTokens: usage.completion,
          costUsd: costOf(usage),
          status: 200,
          kind: 'chat',
        });
      }
      expect(
        calls.filter((call) => call.model === 'auto' || call.model === UNREACHABLE_MODEL),
      ).toEqual([]);
    });
  });
});

describe('responses', () => {
  describe.each(KINDS)('through a provider of kind %s', (kindName) => {
    const kind = () => setup.kinds[kindName];
    const weatherFunction: OpenAI.Responses.FunctionTool = {
      type: 'function',
      name: 'get_weather',
      description: 'The current weather in a city',
      parameters: weatherParameters,
      strict: false,
    };

    test('a whole response: output_text, the catalog id, the provider’s usage', async () => {
      kind().text('Hello from the other side.', { prompt: 12, completion: 6 });
      const response = await client().responses.create({
        model: kind().model,
        instructions: 'Be brief.',
        input: 'Say hello.',
      });
      expect(response.status).toBe('completed');
      expect(response.model).toBe(kind().model);
      expect(response.output_text).toBe('Hello from the other side.');
      expect(response.usage).toMatchObject({
        input_tokens: 12,
        output_tokens: 6,
        total_tokens: 18,
      });
    });

    test('a streamed response: finalResponse() has the text and the usage', async () => {
      const text = 'Streaming, word by word.';
      kind().text(text, { prompt: 13, completion: 5 });
      const stream = client().responses.stream({ model: kind().model, input: 'Stream it.' });
      const deltas: string[] = [];
      stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
      const final = await stream.finalResponse();
      expect(deltas.join('')).toBe(text);
      expect(final.status).toBe('completed');
      expect(final.model).toBe(kind().model);
      expect(final.output_text).toBe(text);
      expect(final.usage).toMatchObject({ input_tokens: 13, output_tokens: 5, total_tokens: 18 });
    });

    test('function calls streamed are rebuilt: call_id, name, arguments', async () => {
      kind().toolCalls(weatherCalls);
      const final = await client()
        .responses.stream({
          model: kind().model,
          input: 'Weather in Paris and Oslo?',
          tools: [weatherFunction],
        })
        .finalResponse();
      const calls = final.output.flatMap((item) =>
        item.type === 'function_call'
          ? [{ call_id: item.call_id, name: item.name, arguments: item.arguments }]
          : [],
      );
      expect(calls).toEqual(
        weatherCalls.map((call) => ({
          call_id: call.id,
          name: call.name,
          arguments: JSON.stringify(call.args),
        })),
      );
    });
  });
});
