import Anthropic from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnthropicSimulator, startAnthropicSimulator } from './anthropic-simulator.ts';

const apiKey = 'sk-ant-test-key';
let sim: AnthropicSimulator;
let client: Anthropic;

beforeEach(async () => {
  sim = await startAnthropicSimulator({ apiKey });
  client = new Anthropic({ baseURL: sim.baseUrl, apiKey, maxRetries: 0 });
});

afterEach(async () => {
  await sim.close();
});

const base = {
  model: 'claude-sonnet-4-5',
  max_tokens: 256,
  system: 'Be brief.',
  messages: [{ role: 'user' as const, content: 'Hello there' }],
};

/** A raw request, for what the SDK would never send. */
const post = (headers: Record<string, string>, body: unknown) =>
  fetch(`${sim.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('Anthropic simulator', () => {
  it('answers a non-streaming request with a message object', async () => {
    sim.script({ kind: 'text', text: 'Hi! How can I help?' });
    const message = await client.messages.create(base);

    expect(message.id).toMatch(/^msg_01[0-9A-Za-z]{22}$/);
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Hi! How can I help?' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
    });
    // ceil(("Be brief." + "Hello there").length / 4) = ceil(20 / 4); ceil(19 / 4).
    expect(message.usage).toMatchObject({
      input_tokens: 5,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it('echoes the last user text when nothing is scripted', async () => {
    const message = await client.messages.create({
      ...base,
      messages: [
        { role: 'user', content: 'First' },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: [{ type: 'text', text: 'Second' }] },
      ],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'You said: Second' }]);
  });

  it('reports a scripted stop sequence and usage', async () => {
    sim.script({
      kind: 'text',
      text: 'One, two',
      stopReason: 'stop_sequence',
      stopSequence: ', three',
      usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 3 },
    });
    const message = await client.messages.create({ ...base, stop_sequences: [', three'] });
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe(', three');
    expect(message.usage).toMatchObject({
      input_tokens: 10,
      cache_read_input_tokens: 90,
      output_tokens: 3,
    });
  });

  it('streams the documented event sequence, which the SDK parses', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    sim.script({ kind: 'text', text });
    const stream = await client.messages.create({ ...base, stream: true });
    const events: RawMessageStreamEvent[] = [];
    for await (const event of stream) events.push(event);

    const types = events.map((event) => event.type);
    expect(types[0]).toBe('message_start');
    expect(types[1]).toBe('content_block_start');
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    const deltas = events.filter((event) => event.type === 'content_block_delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.length).toBe(types.length - 5);
    const rebuilt = deltas
      .map((event) => (event.delta.type === 'text_delta' ? event.delta.text : ''))
      .join('');
    expect(rebuilt).toBe(text);

    const start = events[0];
    expect(start?.type === 'message_start' && start.message).toMatchObject({
      content: [],
      stop_reason: null,
      usage: { input_tokens: 5, output_tokens: 1 },
    });
    const delta = events.at(-2);
    expect(delta?.type === 'message_delta' && delta).toMatchObject({
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 11 },
    });
  });

  it('sends named events whose data repeats the name, with a ping', async () => {
    sim.script({ kind: 'text', text: 'Hi' });
    const response = await post(
      { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
      { ...base, stream: true },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = (await response.text())
      .trim()
      .split('\n\n')
      .map((raw) => {
        const [eventLine, dataLine] = raw.split('\n');
        return {
          event: eventLine?.replace(/^event: /, ''),
          data: JSON.parse(dataLine?.replace(/^data: /, '') ?? ''),
        };
      });
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events.every((event) => event.data.type === event.event)).toBe(true);
  });

  it('streams tool use as input_json_delta pieces that the SDK rebuilds', async () => {
    sim.script({
      kind: 'tool_calls',
      text: 'Let me look.',
      calls: [
        { id: 'toolu_weather', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
        { id: 'toolu_time', name: 'get_time', input: { timezone: 'Europe/Paris' } },
      ],
    });
    const stream = client.messages.stream({
      ...base,
      tools: [
        { name: 'get_weather', input_schema: { type: 'object' } },
        { name: 'get_time', input_schema: { type: 'object' } },
      ],
    });
    const pieces: string[] = [];
    stream.on('inputJson', (piece) => pieces.push(piece));
    const final = await stream.finalMessage();

    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      {
        type: 'tool_use',
        id: 'toolu_weather',
        name: 'get_weather',
        input: { city: 'Paris', unit: 'celsius' },
      },
      { type: 'tool_use', id: 'toolu_time', name: 'get_time', input: { timezone: 'Europe/Paris' } },
    ]);
    expect(pieces.length).toBeGreaterThan(4);
    expect(pieces.join('')).toBe('{"city":"Paris","unit":"celsius"}{"timezone":"Europe/Paris"}');
  });

  it('rejects a wrong key with 401 authentication_error, unrecorded', async () => {
    const wrong = new Anthropic({ baseURL: sim.baseUrl, apiKey: 'sk-ant-wrong', maxRetries: 0 });
    const error = await wrong.messages.create(base).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.type).toBe('authentication_error');
    expect(error.error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
    expect(sim.requests).toHaveLength(0);
  });

  it('requires the anthropic-version header', async () => {
    const response = await post({ 'x-api-key': apiKey }, base);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
  });

  it('requires model, max_tokens and messages', async () => {
    const { max_tokens: _, ...withoutMaxTokens } = base;
    // @ts-expect-error: max_tokens is required, which is the point.
    const error = await client.messages.create(withoutMaxTokens).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.type).toBe('invalid_request_error');
    expect(error.apiMessage).toBe('max_tokens: Field required');

    const headers = { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' };
    const { model: __, ...withoutModel } = base;
    expect(await (await post(headers, withoutModel)).json()).toMatchObject({
      error: { message: 'model: Field required' },
    });
    const { messages: ___, ...withoutMessages } = base;
    expect(await (await post(headers, withoutMessages)).json()).toMatchObject({
      error: { message: 'messages: Field required' },
    });
    expect(await (await post(headers, { ...base, temperature: 1.5 })).json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        message: 'temperature: Input should be less than or equal to 1',
      },
    });
  });

  it('answers a scripted 429 that the SDK maps to RateLimitError', async () => {
    sim.script({ kind: 'error', status: 429, headers: { 'retry-after': '1' } });
    const error = await client.messages.create(base).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.type).toBe('rate_limit_error');
    expect(error.headers.get('retry-after')).toBe('1');
  });

  it('lets the SDK retry an overloaded answer and succeed', async () => {
    sim.script({ kind: 'error', status: 529 });
    sim.script({ kind: 'text', text: 'Second time lucky' });
    const retrying = new Anthropic({ baseURL: sim.baseUrl, apiKey, maxRetries: 1 });
    const message = await retrying.messages.create(base);
    expect(message.content).toEqual([{ type: 'text', text: 'Second time lucky' }]);
    expect(sim.requests).toHaveLength(2);
  });

  it('answers a scripted 529 that the SDK maps to OverloadedError', async () => {
    sim.script({ kind: 'error', status: 529 });
    const error = await client.messages.create(base).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect(error.type).toBe('overloaded_error');
    expect(error.apiMessage).toBe('Overloaded');
  });

  it('sends an error event mid-stream that the SDK throws', async () => {
    sim.script({ kind: 'error-mid-stream', text: 'Half an answer' });
    const stream = await client.messages.create({ ...base, stream: true });
    let received = '';
    const error = await (async () => {
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          received += event.delta.text;
        }
      }
    })().catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.type).toBe('overloaded_error');
    expect(error.message).toMatch(/Overloaded/);
    expect(received).toBe('Half an answer');
  });

  it('answers error-mid-stream with the error status when not streaming', async () => {
    sim.script({ kind: 'error-mid-stream' });
    const error = await client.messages.create(base).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
  });

  it('drops the connection when scripted to', async () => {
    sim.script({ kind: 'drop' });
    const error = await client.messages.create(base).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.APIConnectionError);
  });

  it('hangs until the client times out', async () => {
    sim.script({ kind: 'hang' });
    const impatient = new Anthropic({ baseURL: sim.baseUrl, apiKey, maxRetries: 0, timeout: 200 });
    const error = await impatient.messages.create(base).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
  });

  it('records the parsed requests and their headers', async () => {
    await client.messages.create({ ...base, stop_sequences: ['END'] });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      body: { ...base, stop_sequences: ['END'] },
    });
    // The SDK sends the key as a bearer token; the raw requests above use `x-api-key`.
    expect(sim.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(sim.requests[0]?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
