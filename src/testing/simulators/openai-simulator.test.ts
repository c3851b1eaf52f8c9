import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OpenAiSimulator, startOpenAiSimulator } from './openai-simulator.ts';
import { EXTRACTION_EXAMPLE } from './simulated-extraction.ts';

const apiKey = 'sk-test-key';
let sim: OpenAiSimulator;
let client: OpenAI;

beforeEach(async () => {
  sim = await startOpenAiSimulator({ apiKey });
  client = new OpenAI({ baseURL: sim.baseUrl, apiKey, maxRetries: 0 });
});

afterEach(async () => {
  await sim.close();
});

const messages = [
  { role: 'system' as const, content: 'Be brief.' },
  { role: 'user' as const, content: 'Hello there' },
];

describe('OpenAI simulator', () => {
  it('answers a non-streaming request with a chat.completion object', async () => {
    sim.script({ kind: 'text', text: 'Hi! How can I help?' });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      n: 2,
    });

    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-4o-mini');
    expect(completion.choices).toHaveLength(2);
    expect(completion.choices[1]).toMatchObject({
      index: 1,
      message: { role: 'assistant', content: 'Hi! How can I help?', refusal: null },
      finish_reason: 'stop',
      logprobs: null,
    });
    // ceil(("Be brief." + "Hello there").length / 4) = ceil(20 / 4); ceil(19 / 4).
    expect(completion.usage).toMatchObject({
      prompt_tokens: 5,
      completion_tokens: 5,
      total_tokens: 10,
    });
  });

  it('echoes the last user message when nothing is scripted', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o', messages });
    expect(completion.choices[0]?.message.content).toBe('You said: Hello there');
  });

  it('streams text in several chunks, role first, finish reason last, then usage', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    sim.script({ kind: 'text', text });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const withChoices = chunks.filter((chunk) => chunk.choices.length > 0);
    expect(withChoices.length).toBeGreaterThan(3);
    expect(withChoices[0]?.choices[0]?.delta).toMatchObject({ role: 'assistant', content: '' });
    const rebuilt = withChoices.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(rebuilt).toBe(text);
    const last = withChoices.at(-1)?.choices[0];
    expect(last?.finish_reason).toBe('stop');
    expect(last?.delta).toEqual({});
    expect(
      withChoices.slice(0, -1).every((chunk) => chunk.choices[0]?.finish_reason === null),
    ).toBe(true);
    expect(withChoices.every((chunk) => chunk.usage === null)).toBe(true);

    const usageChunk = chunks.at(-1);
    expect(usageChunk?.choices).toEqual([]);
    expect(usageChunk?.usage).toMatchObject({
      prompt_tokens: 5,
      completion_tokens: 11,
      total_tokens: 16,
    });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  });

  it('streams parallel tool calls that the SDK helper rebuilds', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [
        { id: 'call_weather', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
        { id: 'call_time', name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
      ],
    });
    const stream = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages,
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } },
        { type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } },
      ],
    });
    const final = await stream.finalChatCompletion();

    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(final.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'call_weather',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
      },
      {
        id: 'call_time',
        type: 'function',
        function: { name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
      },
    ]);
  });

  it('a reasoning model: message.reasoning before the answer, its tokens in the usage', async () => {
    const thinking = 'The user greets me. A short greeting back will do.';
    sim.script({ kind: 'text', text: 'Hello!', reasoning: { text: thinking } });
    const completion = await client.chat.completions.create({
      model: 'o4-mini',
      messages,
      reasoning_effort: 'low',
    });
    // `reasoning` is not in the SDK's types: compatible servers add it, the SDK keeps it.
    expect(completion.choices[0]?.message).toEqual({
      role: 'assistant',
      content: 'Hello!',
      reasoning: thinking,
      refusal: null,
      annotations: [],
    });
    // ceil(51 / 4) reasoning tokens, within the completion's ceil(6 / 4) + 13.
    expect(completion.usage?.completion_tokens).toBe(15);
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(13);
    expect(sim.requests[0]?.body.reasoning_effort).toBe('low');
  });

  it('a reasoning model streams its reasoning deltas first; the SDK helper keeps the tool calls', async () => {
    const thinking = 'I should look the weather up.';
    sim.script({
      kind: 'tool_calls',
      calls: [{ id: 'call_weather', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      reasoning: { text: thinking, field: 'reasoning_content' },
    });
    const stream = client.chat.completions.stream({
      model: 'deepseek-reasoner',
      messages,
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } },
      ],
      stream_options: { include_usage: true },
    });
    const deltas: Record<string, unknown>[] = [];
    stream.on('chunk', (chunk) => {
      for (const choice of chunk.choices) deltas.push(choice.delta as Record<string, unknown>);
    });
    const final = await stream.finalChatCompletion();

    const firstToolCall = deltas.findIndex((delta) => 'tool_calls' in delta);
    const reasoning = deltas.map((delta) => delta.reasoning_content ?? '').join('');
    expect(reasoning).toBe(thinking);
    expect(deltas.slice(firstToolCall).some((delta) => 'reasoning_content' in delta)).toBe(false);
    expect(deltas[0]).toMatchObject({ role: 'assistant', reasoning_content: '' });
    expect(final.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'call_weather',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
    ]);
    expect(final.usage?.completion_tokens_details?.reasoning_tokens).toBe(8);
  });

  it('rejects a wrong key with 401 invalid_api_key', async () => {
    const wrong = new OpenAI({ baseURL: sim.baseUrl, apiKey: 'sk-wrong', maxRetries: 0 });
    const error = await wrong.chat.completions
      .create({ model: 'gpt-4o', messages })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.code).toBe('invalid_api_key');
    expect(error.type).toBe('invalid_request_error');
    expect(sim.requests).toHaveLength(0);
  });

  it('answers a scripted 429 that the SDK maps to RateLimitError', async () => {
    sim.script({ kind: 'error', status: 429, headers: { 'retry-after': '1' } });
    const error = await client.chat.completions
      .create({ model: 'gpt-4o', messages })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.code).toBe('rate_limit_exceeded');
  });

  it('lets the SDK retry after the retry-after delay and succeed', async () => {
    sim.script({ kind: 'error', status: 429, headers: { 'retry-after': '1' } });
    sim.script({ kind: 'text', text: 'Second time lucky' });
    const retrying = new OpenAI({ baseURL: sim.baseUrl, apiKey, maxRetries: 1 });
    const started = Date.now();
    const completion = await retrying.chat.completions.create({ model: 'gpt-4o', messages });

    expect(completion.choices[0]?.message.content).toBe('Second time lucky');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(sim.requests).toHaveLength(2);
  });

  it('sends an error event mid-stream that the SDK throws', async () => {
    sim.script({ kind: 'error-mid-stream', text: 'Half an answer' });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      messages,
      stream: true,
    });
    let received = '';
    const error = await (async () => {
      for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? '';
    })().catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.message).toMatch(/server had an error/);
    expect(received).toBe('Half an answer');
  });

  it('drops the connection when scripted to', async () => {
    sim.script({ kind: 'drop' });
    const error = await client.chat.completions
      .create({ model: 'gpt-4o', messages })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it('hangs until the client times out', async () => {
    sim.script({ kind: 'hang' });
    const impatient = new OpenAI({ baseURL: sim.baseUrl, apiKey, maxRetries: 0, timeout: 200 });
    const error = await impatient.chat.completions
      .create({ model: 'gpt-4o', messages })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('records the parsed requests', async () => {
    await client.chat.completions.create({ model: 'gpt-4o', messages, temperature: 0.2 });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'gpt-4o', messages, temperature: 0.2 },
    });
    expect(sim.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
  });
});

describe('OpenAI simulator, Responses API', () => {
  it('answers a non-streaming request with a Response object', async () => {
    sim.script({ kind: 'text', text: 'Hi! How can I help?' });
    const response = await client.responses.create({
      model: 'gpt-4o-mini',
      instructions: 'Be brief.',
      input: 'Hello there',
    });

    expect(response.id).toMatch(/^resp_/);
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-4o-mini',
      instructions: 'Be brief.',
      error: null,
      incomplete_details: null,
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hi! How can I help?', annotations: [] }],
        },
      ],
    });
    expect(response.output[0]?.id).toMatch(/^msg_/);
    expect(response.output_text).toBe('Hi! How can I help?');
    // ceil(("Be brief." + "Hello there").length / 4) = ceil(20 / 4); ceil(19 / 4).
    expect(response.usage).toEqual({
      input_tokens: 5,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 10,
    });
    expect(sim.requests[0]).toMatchObject({
      path: '/v1/responses',
      body: { input: 'Hello there' },
    });
  });

  it('echoes the last user message when nothing is scripted', async () => {
    const response = await client.responses.create({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: 'First' },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Second' }] },
      ],
    });
    expect(response.output_text).toBe('You said: Second');
  });

  it('streams text that responses.stream() rebuilds, in numbered events', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    sim.script({ kind: 'text', text });
    const stream = client.responses.stream({ model: 'gpt-4o-mini', input: 'Hello there' });
    const events: { type: string; sequence_number: number }[] = [];
    stream.on('event', (event) => events.push(event));
    const final = await stream.finalResponse();

    expect(final.output_text).toBe(text);
    expect(final.status).toBe('completed');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const deltas = events.filter((event) => event.type === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(events.map((event) => event.type).filter((type) => !type.endsWith('.delta'))).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('answers function calls, whole and streamed', async () => {
    const calls = [
      { id: 'call_weather', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
      { id: 'call_time', name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
    ];
    const tools = [
      {
        type: 'function' as const,
        name: 'get_weather',
        parameters: { type: 'object' },
        strict: false,
      },
      {
        type: 'function' as const,
        name: 'get_time',
        parameters: { type: 'object' },
        strict: false,
      },
    ];
    const expected = calls.map((call) => ({
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    }));

    sim.script({ kind: 'tool_calls', calls });
    const whole = await client.responses.create({ model: 'gpt-4o-mini', input: 'Hi', tools });
    expect(whole.output).toMatchObject(expected);
    expect(whole.output[0]?.id).toMatch(/^fc_/);

    sim.script({ kind: 'tool_calls', calls });
    const streamed = await client.responses
      .stream({ model: 'gpt-4o-mini', input: 'Hi', tools })
      .finalResponse();
    expect(streamed.output).toMatchObject(expected);

    sim.script({ kind: 'tool_calls', calls });
    const events = await client.responses.create({
      model: 'gpt-4o-mini',
      input: 'Hi',
      tools,
      stream: true,
    });
    let args = '';
    for await (const event of events) {
      if (event.type === 'response.function_call_arguments.delta' && event.output_index === 0) {
        args += event.delta;
      }
    }
    expect(args).toBe(calls[0]?.arguments);
  });

  it('ends an answer cut at the length limit as incomplete', async () => {
    sim.script({ kind: 'text', text: 'Once upon a', finishReason: 'length' });
    const final = await client.responses
      .stream({ model: 'gpt-4o', input: 'Tell me a story' })
      .finalResponse();
    expect(final.status).toBe('incomplete');
    expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(final.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
  });

  it('fails mid-stream with an error event that the SDK throws', async () => {
    sim.script({ kind: 'error-mid-stream', text: 'Half an answer' });
    const stream = await client.responses.create({ model: 'gpt-4o', input: 'Hi', stream: true });
    let received = '';
    const error = await (async () => {
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') received += event.delta;
      }
    })().catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.message).toMatch(/server had an error/);
    expect(received).toBe('Half an answer');
  });
});

describe('OpenAI simulator: embeddings', () => {
  const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
    let sum = 0;
    for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
    return sum;
  };
  const norm = (a: ArrayLike<number>) => Math.sqrt(dot(a, a));

  it('answers the SDK (base64, decoded by it) with unit vectors in input order; near texts nearer', async () => {
    const texts = ['Works as a programmer', 'is learning programming', 'Likes green tea'];
    const response = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: texts,
    });
    expect(sim.requests[0]?.body).toMatchObject({ encoding_format: 'base64', input: texts });
    expect(response.object).toBe('list');
    expect(response.model).toBe('text-embedding-3-small');
    expect(response.data.map((item) => [item.object, item.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
      ['embedding', 2],
    ]);
    const [programmer, programming, tea] = response.data.map((item) => item.embedding);
    for (const vector of [programmer, programming, tea]) {
      expect(vector).toHaveLength(1536);
      expect(norm(vector as ArrayLike<number>)).toBeCloseTo(1, 5);
    }
    const near = dot(programmer as number[], programming as number[]);
    expect(near).toBeGreaterThan(0.15);
    expect(near).toBeGreaterThan(dot(programmer as number[], tea as number[]) + 0.15);
    // ceil(21/4) + ceil(23/4) + ceil(15/4)
    expect(response.usage).toEqual({ prompt_tokens: 16, total_tokens: 16 });
  });

  it('the same text the same vector, as floats when asked; `dimensions` shortens, still unit length', async () => {
    const floats = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'Likes green tea',
      encoding_format: 'float',
    });
    const again = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'Likes green tea',
    });
    expect(Array.isArray(floats.data[0]?.embedding)).toBe(true);
    expect(Array.from(again.data[0]?.embedding ?? [])).toEqual(floats.data[0]?.embedding);
    const short = await client.embeddings.create({
      model: 'text-embedding-3-large',
      input: ['Likes green tea'],
      dimensions: 256,
    });
    expect(short.data[0]?.embedding).toHaveLength(256);
    expect(norm(short.data[0]?.embedding ?? [])).toBeCloseTo(1, 5);
    const tokens = await client.embeddings.create({
      model: 'text-embedding-ada-002',
      input: [[1, 2, 3], [4]],
    });
    expect(tokens.data).toHaveLength(2);
    expect(tokens.usage.prompt_tokens).toBe(4);
  });

  it.each([
    [
      'an empty string',
      { model: 'text-embedding-3-small', input: '' },
      400,
      /'\$\.input' is invalid/,
    ],
    ['no input', { model: 'text-embedding-3-small' }, 400, /'input' is a required property/],
    ['no model', { input: 'x' }, 400, /you must provide a model parameter/],
    [
      'more than 2048 inputs',
      { model: 'text-embedding-3-small', input: Array.from({ length: 2049 }, () => 'x') },
      400,
      /'\$\.input' is invalid/,
    ],
    [
      'dimensions of a model that has none to choose',
      { model: 'text-embedding-ada-002', input: 'x', dimensions: 256 },
      400,
      /does not support specifying dimensions/,
    ],
    [
      'more dimensions than the model has',
      { model: 'text-embedding-3-small', input: 'x', dimensions: 2000 },
      400,
      /between 1 and 1536/,
    ],
    [
      'an encoding it does not know',
      { model: 'text-embedding-3-small', input: 'x', encoding_format: 'hex' },
      400,
      /encoding_format/,
    ],
    ['a model that is none of its', { model: 'gpt-4o', input: 'x' }, 404, /does not exist/],
  ])('refuses %s', async (_name, body, status, message) => {
    const error = await client.embeddings
      .create(body as unknown as OpenAI.EmbeddingCreateParams)
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(status);
    expect(error.message).toMatch(message);
  });

  it('an outage fails every request, embeddings and chat alike, until it ends', async () => {
    sim.outage({ kind: 'error', status: 503 });
    const embedding = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: 'x' })
      .catch((e) => e);
    expect(embedding).toBeInstanceOf(OpenAI.InternalServerError);
    expect(embedding.status).toBe(503);
    sim.script({ kind: 'text', text: 'After the outage' });
    const chat = await client.chat.completions
      .create({ model: 'gpt-4o', messages })
      .catch((e) => e);
    expect(chat.status).toBe(503);
    sim.outage();
    const completion = await client.chat.completions.create({ model: 'gpt-4o', messages });
    expect(completion.choices[0]?.message.content).toBe('After the outage');
    expect(
      (await client.embeddings.create({ model: 'text-embedding-3-small', input: 'x' })).data,
    ).toHaveLength(1);
  });
});

describe('OpenAI simulator: the echo and extraction models', () => {
  const extractionPrompt = EXTRACTION_EXAMPLE.prompt;
  const proposals = { proposals: EXTRACTION_EXAMPLE.proposals };
  const extraction = {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system' as const, content: 'Extract memories.' },
      { role: 'user' as const, content: extractionPrompt },
    ],
    response_format: {
      type: 'json_schema' as const,
      json_schema: {
        name: 'memory_proposals',
        strict: true,
        schema: {
          type: 'object',
          properties: { proposals: { type: 'array', items: { type: 'object' } } },
        },
      },
    },
  };

  it('an echo model answers the request body as JSON, whole', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-echo',
      messages,
      temperature: 0.3,
    });
    const text = completion.choices[0]?.message.content ?? '';
    expect(JSON.parse(text)).toEqual({ model: 'gpt-echo', messages, temperature: 0.3 });
    expect(text).toBe(JSON.stringify(sim.requests[0]?.body));
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    // The usual estimate: ceil(20 / 4) for the prompt, the JSON text's length for the answer.
    expect(completion.usage).toMatchObject({
      prompt_tokens: 5,
      completion_tokens: Math.ceil(text.length / 4),
    });
  });

  it('an echo model streams the body in JSON pieces that join back to it', async () => {
    const stream = await client.chat.completions.create({
      model: 'echo-1',
      messages,
      stream: true,
    });
    const pieces: string[] = [];
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta.content;
      if (content) pieces.push(content);
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    const sent = JSON.parse(pieces.join(''));
    expect(sent).toEqual({ model: 'echo-1', messages, stream: true });
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.every((piece) => piece.length <= 8)).toBe(true);
    expect(finish).toBe('stop');
  });

  it('an echo model echoes a Responses request too', async () => {
    const response = await client.responses.create({
      model: 'gpt-echo',
      instructions: 'Be brief.',
      input: 'Hello there',
    });
    expect(JSON.parse(response.output_text)).toEqual({
      model: 'gpt-echo',
      instructions: 'Be brief.',
      input: 'Hello there',
    });
  });

  it('a script still comes first', async () => {
    sim.script({ kind: 'text', text: 'Scripted' });
    const scripted = await client.chat.completions.create({ model: 'gpt-echo', messages });
    expect(scripted.choices[0]?.message.content).toBe('Scripted');
    sim.script({ kind: 'text', text: 'Scripted again' });
    const extracted = await client.chat.completions.create(extraction);
    expect(extracted.choices[0]?.message.content).toBe('Scripted again');
  });

  it('an extraction call gets the simulated proposals as its JSON content', async () => {
    const completion = await client.chat.completions.create(extraction);
    const text = JSON.stringify(proposals);
    expect(completion.choices[0]?.message.content).toBe(text);
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.completion_tokens).toBe(Math.ceil(text.length / 4));
  });

  it('an extraction call streams the proposals in JSON pieces', async () => {
    const stream = await client.chat.completions.create({ ...extraction, stream: true });
    const pieces: string[] = [];
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta.content;
      if (content) pieces.push(content);
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(pieces.join('')).toBe(JSON.stringify(proposals));
    expect(pieces.every((piece) => piece.length <= 8)).toBe(true);
    expect(finish).toBe('stop');
  });

  it('a JSON schema without proposals gets the plain echo of the last user message', async () => {
    const completion = await client.chat.completions.create({
      ...extraction,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object', properties: { answer: {} } } },
      },
    });
    expect(completion.choices[0]?.message.content).toBe(`You said: ${extractionPrompt}`);
  });
});
