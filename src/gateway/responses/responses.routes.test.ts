/**
 * `/v1/responses` over HTTP with the official `openai` package: whole and streamed answers,
 * function calls, images and function-call outputs in the input, refusals of what is not
 * served, usage. The streamed events are compared with what the OpenAI simulator itself sends
 * for the same answer, so the sequence is OpenAI's, not our idea of it.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../../testing/gateway-server.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../../testing/simulators/openai-simulator.ts';

let sim: OpenAiSimulator;
let gateway: GatewayServer;

beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: 'sk-sim', chunkDelayMs: 0 });
  gateway = await startGatewayServer(
    {
      providers: { sim: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_SIM_KEY' } },
      models: [
        {
          id: 'sim/gpt-4o',
          provider: 'sim',
          upstream: 'gpt-4o',
          vision: true,
          tools: true,
          jsonOutput: true,
          contextWindow: 128000,
          price: { input: 2, output: 8 },
        },
      ],
    },
    { TEST_SIM_KEY: 'sk-sim' },
  );
});
afterAll(async () => {
  await gateway?.close();
  await sim?.close();
});

const client = () =>
  new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries: 0 });
const direct = () => new OpenAI({ baseURL: sim.baseUrl, apiKey: 'sk-sim', maxRetries: 0 });

describe('a whole response', () => {
  test('text, with instructions sent as the system message, usage and the routing headers', async () => {
    sim.script({
      kind: 'text',
      text: 'Bonjour !',
      usage: { prompt_tokens: 12, completion_tokens: 3 },
    });
    const { data, response } = await client()
      .responses.create({
        model: 'sim/gpt-4o',
        instructions: 'Answer in French.',
        input: 'Say hello',
        max_output_tokens: 64,
      })
      .withResponse();
    expect(data).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'sim/gpt-4o',
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Bonjour !', annotations: [] }],
        },
      ],
      usage: { input_tokens: 12, output_tokens: 3, total_tokens: 15 },
    });
    expect(data.id).toMatch(/^resp_/);
    expect(data.output_text).toBe('Bonjour !');
    expect(response.headers.get('x-mnemo-model')).toBe('sim/gpt-4o');
    expect(sim.requests.at(-1)?.body).toMatchObject({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Say hello' },
      ],
      max_completion_tokens: 64,
    });
  });

  test('function calls out, their outputs and an image back in', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [{ id: 'call_7', name: 'get_weather', arguments: '{"city":"Lyon"}' }],
    });
    const tools = [
      {
        type: 'function' as const,
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        strict: false,
      },
    ];
    const first = await client().responses.create({
      model: 'sim/gpt-4o',
      input: 'Weather?',
      tools,
    });
    expect(first.output).toEqual([
      expect.objectContaining({
        type: 'function_call',
        call_id: 'call_7',
        name: 'get_weather',
        arguments: '{"city":"Lyon"}',
        status: 'completed',
      }),
    ]);

    sim.script({ kind: 'text', text: 'Sunny in Lyon.' });
    await client().responses.create({
      model: 'sim/gpt-4o',
      tools,
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Weather where this is?' },
            {
              type: 'input_image',
              image_url: 'data:image/png;base64,iVBORw0KGgo=',
              detail: 'auto',
            },
          ],
        },
        ...first.output.filter((item) => item.type === 'function_call'),
        { type: 'function_call_output', call_id: 'call_7', output: '{"sky":"clear"}' },
      ],
    });
    expect(sim.requests.at(-1)?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather where this is?' },
          {
            type: 'image_url',
            image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
          },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_7',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Lyon"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_7', content: '{"sky":"clear"}' },
    ]);
  });
});

describe('a streamed response', () => {
  test('the event sequence OpenAI sends for the same answer, rebuilt by the SDK', async () => {
    const types = async (openai: OpenAI, model: string) => {
      sim.script({ kind: 'text', text: 'Three small words' });
      const stream = openai.responses.stream({ model, input: 'Hi' });
      const seen: string[] = [];
      for await (const event of stream) {
        seen.push(event.type);
        expect(event.sequence_number).toBe(seen.length - 1);
      }
      const final = await stream.finalResponse();
      expect(final.output_text).toBe('Three small words');
      return seen;
    };
    const ours = await types(client(), 'sim/gpt-4o');
    expect(ours).toEqual(await types(direct(), 'gpt-4o'));
    expect(ours[0]).toBe('response.created');
    expect(ours.at(-1)).toBe('response.completed');
  });

  test('parallel function calls are rebuilt from the stream', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [
        { id: 'call_a', name: 'lookup', arguments: '{"q":"first"}' },
        { id: 'call_b', name: 'lookup', arguments: '{"q":"second"}' },
      ],
    });
    const final = await client()
      .responses.stream({
        model: 'sim/gpt-4o',
        input: 'Look both up',
        tools: [
          { type: 'function', name: 'lookup', parameters: { type: 'object' }, strict: false },
        ],
      })
      .finalResponse();
    expect(
      final.output.map((item) =>
        item.type === 'function_call'
          ? [item.call_id, item.name, item.arguments, item.id]
          : item.type,
      ),
    ).toEqual([
      ['call_a', 'lookup', '{"q":"first"}', expect.stringMatching(/^fc_/)],
      ['call_b', 'lookup', '{"q":"second"}', expect.stringMatching(/^fc_/)],
    ]);
  });

  test('a provider failing mid-stream: the SDK throws after the partial text', async () => {
    sim.script({ kind: 'error-mid-stream', text: 'Partial' });
    const stream = client().responses.stream({ model: 'sim/gpt-4o', input: 'Hi' });
    let text = '';
    const error = await (async () => {
      for await (const event of stream)
        if (event.type === 'response.output_text.delta') text += event.delta;
    })().catch((e: unknown) => e);
    expect(text).toBe('Partial');
    expect(error).toBeInstanceOf(OpenAI.APIError);
  });
});

describe('what is refused', () => {
  test('stored responses, built-in tools and bad bodies: 400 saying so, nothing sent upstream', async () => {
    const before = sim.requests.length;
    const stored = await client()
      .responses.create({ model: 'sim/gpt-4o', input: 'Hi', previous_response_id: 'resp_123' })
      .catch((e: unknown) => e);
    expect(stored).toBeInstanceOf(OpenAI.BadRequestError);
    expect(stored).toMatchObject({ param: 'previous_response_id' });

    const search = await client()
      .responses.create({ model: 'sim/gpt-4o', input: 'Hi', tools: [{ type: 'web_search' }] })
      .catch((e: unknown) => e);
    expect(search).toBeInstanceOf(OpenAI.BadRequestError);

    const missing = await fetch(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Hi' }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: {
        message: "Missing required parameter: 'model'.",
        type: 'invalid_request_error',
        param: 'model',
        code: 'missing_required_parameter',
      },
    });
    expect(sim.requests.length).toBe(before);
  });
});

test('usage of whole and streamed responses is recorded', async () => {
  sim.script({
    kind: 'text',
    text: 'Counted',
    usage: { prompt_tokens: 300, completion_tokens: 40 },
  });
  await client().responses.create({ model: 'sim/gpt-4o', input: 'Count me' });
  sim.script({
    kind: 'text',
    text: 'Streamed',
    usage: { prompt_tokens: 700, completion_tokens: 60 },
  });
  await client().responses.stream({ model: 'sim/gpt-4o', input: 'Count me too' }).finalResponse();
  const calls = await gateway.calls((recorded) =>
    recorded.some((call) => call.promptTokens === 700),
  );
  expect(calls).toContainEqual(
    expect.objectContaining({
      model: 'sim/gpt-4o',
      promptTokens: 300,
      completionTokens: 40,
      status: 200,
    }),
  );
  expect(calls).toContainEqual(
    expect.objectContaining({
      model: 'sim/gpt-4o',
      promptTokens: 700,
      completionTokens: 60,
      status: 200,
    }),
  );
});
