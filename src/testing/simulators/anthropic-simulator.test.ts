import Anthropic from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnthropicSimulator, startAnthropicSimulator } from './anthropic-simulator.ts';
import { EXTRACTION_EXAMPLE } from './simulated-extraction.ts';

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

describe('Anthropic simulator: extended thinking', () => {
  const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
  const weather: Anthropic.Tool = {
    name: 'get_weather',
    input_schema: { type: 'object', properties: { city: { type: 'string' } } },
  };
  const call = { id: 'toolu_01paris', name: 'get_weather', input: { city: 'Paris' } };
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).type).toBe(
      'invalid_request_error',
    );
    return (error as InstanceType<typeof Anthropic.BadRequestError>).apiMessage;
  };

  it('answers a thinking block with a signature before the text', async () => {
    sim.script({ kind: 'text', text: 'Four.', thinking: 'Two and two make four.' });
    const message = await client.messages.create({ ...base, max_tokens: 2048, thinking });
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Two and two make four.', signature: expect.any(String) },
      { type: 'text', text: 'Four.' },
    ]);
    const [block] = message.content;
    expect(block?.type === 'thinking' && block.signature).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    // ceil(("Two and two make four." + "Four.").length / 4) = ceil(27 / 4)
    expect(message.usage.output_tokens).toBe(7);
  });

  it('thinks only when asked to', async () => {
    sim.script({ kind: 'text', text: 'Four.', thinking: 'Two and two make four.' });
    const message = await client.messages.create(base);
    expect(message.content).toEqual([{ type: 'text', text: 'Four.' }]);
  });

  it('streams thinking_delta pieces then the signature_delta, which messages.stream rebuilds', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [call],
      thinking: 'The user wants the weather in Paris.',
      redacted: true,
    });
    const stream = client.messages.stream({
      ...base,
      max_tokens: 2048,
      thinking,
      tools: [weather],
    });
    const events: RawMessageStreamEvent[] = [];
    stream.on('streamEvent', (event) => events.push(event));
    const thoughts: string[] = [];
    const signatures: string[] = [];
    stream.on('thinking', (delta) => thoughts.push(delta));
    stream.on('signature', (signature) => signatures.push(signature));
    const message = await stream.finalMessage();

    expect(message.content).toEqual([
      { type: 'redacted_thinking', data: expect.stringMatching(/^EmwKAhgBEgy/) },
      {
        type: 'thinking',
        thinking: 'The user wants the weather in Paris.',
        signature: signatures[0],
      },
      { type: 'tool_use', ...call },
    ]);
    expect(thoughts.join('')).toBe('The user wants the weather in Paris.');
    expect(thoughts.length).toBeGreaterThan(3);
    expect(signatures).toHaveLength(1);
    // The thinking block: start (empty), the thinking deltas, the signature delta, its stop.
    const ofBlock = events
      .filter((event) => 'index' in event && event.index === 1)
      .map((event) => (event.type === 'content_block_delta' ? event.delta.type : event.type));
    expect(ofBlock).toEqual([
      'content_block_start',
      ...thoughts.map(() => 'thinking_delta'),
      'signature_delta',
      'content_block_stop',
    ]);
    const start = events.find((event) => event.type === 'content_block_start' && event.index === 1);
    expect(start?.type === 'content_block_start' && start.content_block).toEqual({
      type: 'thinking',
      thinking: '',
      signature: '',
    });
  });

  it('continues a tool loop whose thinking comes back unchanged', async () => {
    sim.script({ kind: 'tool_calls', calls: [call], thinking: 'Paris, then.', redacted: true });
    const first = await client.messages.create({
      ...base,
      max_tokens: 2048,
      thinking,
      tools: [weather],
    });
    sim.script({ kind: 'text', text: 'Sunny in Paris.' });
    const messages: Anthropic.MessageParam[] = [
      ...base.messages,
      { role: 'assistant', content: first.content },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.id, content: '22 °C, sunny' }],
      },
    ];
    const second = await client.messages.create({
      ...base,
      max_tokens: 2048,
      thinking,
      tools: [weather],
      messages,
    });
    expect(second.content.at(-1)).toEqual({ type: 'text', text: 'Sunny in Paris.' });
  });

  it('refuses thinking that changed, a signature it did not issue, and foreign redacted data', async () => {
    sim.script({ kind: 'tool_calls', calls: [call], thinking: 'Paris, then.' });
    const first = await client.messages.create({
      ...base,
      max_tokens: 2048,
      thinking,
      tools: [weather],
    });
    const [block] = first.content;
    if (block?.type !== 'thinking') throw new Error('no thinking block');
    const continued = (thought: Anthropic.ContentBlockParam) =>
      client.messages.create({
        ...base,
        max_tokens: 2048,
        thinking,
        tools: [weather],
        messages: [
          ...base.messages,
          { role: 'assistant', content: [thought, { type: 'tool_use', ...call }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '22' }] },
        ],
      });
    expect(await refusal(continued({ ...block, thinking: 'Changed.' }))).toBe(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
    expect(await refusal(continued({ ...block, signature: 'Zm9yZ2Vk' }))).toBe(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
    expect(await refusal(continued({ type: 'redacted_thinking', data: 'Zm9yZ2Vk' }))).toBe(
      'messages.1.content.0: Invalid `data` in `redacted_thinking` block',
    );
  });

  it('refuses a continued tool call without its thinking while thinking is on, not when off', async () => {
    const messages: Anthropic.MessageParam[] = [
      ...base.messages,
      { role: 'assistant', content: [{ type: 'tool_use', ...call }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '22' }] },
    ];
    const request = { ...base, max_tokens: 2048, tools: [weather], messages };
    expect(await refusal(client.messages.create({ ...request, thinking }))).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
    );
    sim.script({ kind: 'text', text: 'Sunny.' });
    expect((await client.messages.create(request)).content).toEqual([
      { type: 'text', text: 'Sunny.' },
    ]);
  });

  it('refuses the settings thinking does not allow', async () => {
    const request = { ...base, max_tokens: 2048, thinking };
    const docs =
      'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
    expect(
      await refusal(
        client.messages.create({ ...request, thinking: { ...thinking, budget_tokens: 1023 } }),
      ),
    ).toBe('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    expect(await refusal(client.messages.create({ ...request, max_tokens: 1024 }))).toBe(
      `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${docs}`,
    );
    // This SDK's types no longer carry the sampling settings: they go raw.
    const headers = { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' };
    const rawRefusal = async (fields: object) => {
      const response = await post(headers, { ...request, ...fields });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { type: string; message: string } };
      expect(body.error.type).toBe('invalid_request_error');
      return body.error.message;
    };
    expect(await rawRefusal({ temperature: 0.5 })).toBe(
      `\`temperature\` may only be set to 1 when thinking is enabled. ${docs}`,
    );
    expect(await rawRefusal({ top_k: 5 })).toBe(
      `\`top_k\` must be unset when thinking is enabled. ${docs}`,
    );
    expect(await rawRefusal({ top_p: 0.9 })).toBe(
      `\`top_p\` must be greater than or equal to 0.95 or unset when thinking is enabled. ${docs}`,
    );
    for (const tool_choice of [{ type: 'any' }, { type: 'tool', name: 'get_weather' }] as const) {
      expect(
        await refusal(client.messages.create({ ...request, tools: [weather], tool_choice })),
      ).toBe('Thinking may not be enabled when tool_choice forces tool use.');
    }
    sim.script({ kind: 'text', text: 'Fine.' });
    const allowed = await post(headers, { ...request, temperature: 1, top_p: 0.95 });
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as Anthropic.Message).content.at(-1)).toEqual({
      type: 'text',
      text: 'Fine.',
    });
  });
});

describe('Anthropic simulator: turn rules', () => {
  const headers = { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' };
  const refused = async (messages: unknown[]) => {
    const response = await post(headers, { ...base, messages });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    return body.error.message;
  };

  it('refuses no messages, empty content but in a final assistant turn, and blank text', async () => {
    expect(await refused([])).toBe('messages: at least one message is required');
    expect(
      await refused([
        { role: 'user', content: [] },
        { role: 'assistant', content: 'Hi' },
      ]),
    ).toBe(
      'messages.0: all messages must have non-empty content except for the optional final assistant message',
    );
    expect(await refused([{ role: 'user', content: [{ type: 'text', text: '' }] }])).toBe(
      'messages: text content blocks must be non-empty',
    );
    expect(await refused([{ role: 'user', content: [{ type: 'text', text: ' \n' }] }])).toBe(
      'messages: text content blocks must contain non-whitespace text',
    );
  });

  it('refuses a first assistant turn, and takes consecutive turns of one role, as Anthropic does', async () => {
    expect(
      await refused([
        { role: 'assistant', content: 'How can I help?' },
        { role: 'user', content: 'The sky' },
      ]),
    ).toBe('messages: first message must use the "user" role');
    sim.script({ kind: 'text', text: 'Blue.' });
    const message = await client.messages.create({
      ...base,
      messages: [
        { role: 'user', content: 'The sky' },
        { role: 'user', content: 'What colour is it?' },
      ],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Blue.' }]);
  });
});

describe('Anthropic simulator: the echo and extraction models', () => {
  const extractionPrompt = EXTRACTION_EXAMPLE.prompt;
  const proposals = { proposals: EXTRACTION_EXAMPLE.proposals };
  // What the gateway sends for JSON mode: a forced tool named json_response.
  const extraction = {
    ...base,
    system: 'Extract memories.',
    messages: [
      { role: 'user' as const, content: [{ type: 'text' as const, text: extractionPrompt }] },
    ],
    tools: [
      {
        name: 'json_response',
        description: 'Respond with a JSON object.',
        input_schema: {
          type: 'object' as const,
          properties: { proposals: { type: 'array', items: { type: 'object' } } },
        },
      },
    ],
    tool_choice: { type: 'tool' as const, name: 'json_response' },
  };

  it('an echo model answers the request body as JSON text, whole', async () => {
    const message = await client.messages.create({ ...base, model: 'claude-echo' });
    const [block] = message.content;
    const text = block?.type === 'text' ? block.text : '';
    expect(message.content).toHaveLength(1);
    expect(JSON.parse(text)).toEqual({ ...base, model: 'claude-echo' });
    expect(JSON.parse(text).system).toBe('Be brief.');
    expect(text).toBe(JSON.stringify(sim.requests[0]?.body));
    expect(message.stop_reason).toBe('end_turn');
    // The usual estimate: ceil(20 / 4) for the prompt, the JSON text's length for the answer.
    expect(message.usage).toMatchObject({
      input_tokens: 5,
      output_tokens: Math.ceil(text.length / 4),
    });
  });

  it('an echo model streams the body in text deltas that join back to it', async () => {
    const stream = await client.messages.create({ ...base, model: 'echo', stream: true });
    const pieces: string[] = [];
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
        pieces.push(event.delta.text);
      }
    }
    const sent = JSON.parse(pieces.join(''));
    expect(sent).toEqual({ ...base, model: 'echo', stream: true });
    expect(sent.system).toBe('Be brief.');
    expect(pieces.length).toBeGreaterThan(1);
  });

  it('a script still comes first', async () => {
    sim.script({ kind: 'text', text: 'Scripted' });
    const scripted = await client.messages.create({ ...base, model: 'claude-echo' });
    expect(scripted.content).toEqual([{ type: 'text', text: 'Scripted' }]);
    sim.script({ kind: 'text', text: 'Scripted again' });
    const extracted = await client.messages.create(extraction);
    expect(extracted.content).toEqual([{ type: 'text', text: 'Scripted again' }]);
  });

  it('an extraction call gets the proposals as the forced tool’s input', async () => {
    const message = await client.messages.create(extraction);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      {
        type: 'tool_use',
        id: expect.stringMatching(/^toolu_01/),
        name: 'json_response',
        input: proposals,
      },
    ]);
    expect(message.usage.output_tokens).toBe(
      Math.ceil(`json_response${JSON.stringify(proposals)}`.length / 4),
    );
  });

  it('an extraction call streams the proposals as input_json_delta pieces', async () => {
    const stream = client.messages.stream(extraction);
    const events: RawMessageStreamEvent[] = [];
    stream.on('streamEvent', (event) => events.push(event));
    const pieces: string[] = [];
    stream.on('inputJson', (piece) => pieces.push(piece));
    const final = await stream.finalMessage();

    const start = events.find((event) => event.type === 'content_block_start');
    expect(start?.type === 'content_block_start' && start.content_block).toMatchObject({
      type: 'tool_use',
      name: 'json_response',
      input: {},
    });
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe(JSON.stringify(proposals));
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toMatchObject([{ type: 'tool_use', input: proposals }]);
  });

  it('a forced tool of another name gets the plain echo of the last user text', async () => {
    const message = await client.messages.create({
      ...extraction,
      tools: [{ ...extraction.tools[0], name: 'save' }] as typeof extraction.tools,
      tool_choice: { type: 'tool', name: 'save' },
    });
    expect(message.content).toEqual([{ type: 'text', text: `You said: ${extractionPrompt}` }]);
  });
});
