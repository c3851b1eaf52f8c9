/**
 * Memory in chat calls through the official `openai` package and the AI SDK, over each
 * provider kind (docs/memory-chat.md): what is recalled into the prompt (seen by a model that
 * echoes what it was sent), the `x-mnemo-memories` header, and what extraction stores.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KINDS } from '../../testing/gateway-clients.ts';
import {
  ECHO,
  EXTRACTOR,
  type MemoryChatWorld,
  startMemoryChatWorld,
} from '../../testing/memory-chat-world.ts';
import { MEMORY_OPENING, memoryBlock } from './recall-prompt.ts';

/** How a text appears inside the JSON of the upstream request an echo model answers with. */
const quoted = (text: string) => JSON.stringify(text).slice(1, -1);

describe.each(KINDS)('through a provider of kind %s', (kind) => {
  let world: MemoryChatWorld;
  let paris: string;
  let seats: string;
  /** The block recalled while the store holds its two first memories. */
  let block: string;

  beforeAll(async () => {
    world = await startMemoryChatWorld(kind);
    paris = await world.remember('I live in Paris.', 'identity');
    seats = await world.remember('Prefers window seats.', 'preference');
    // The whole store (two memories), the most recently changed first.
    block = memoryBlock(['- [preference] Prefers window seats.', '- [identity] I live in Paris.']);
  });
  afterAll(async () => {
    await world?.close();
  });

  const ask = [
    { role: 'system' as const, content: 'Be brief.' },
    { role: 'user' as const, content: 'Where do I live?' },
  ];

  test('without the opt-in, the request goes out as it came and no header says otherwise', async () => {
    const { data, response } = await world
      .client()
      .chat.completions.create({ model: ECHO[kind], messages: ask })
      .withResponse();
    const echoed = data.choices[0]?.message.content ?? '';
    expect(echoed).toContain('Where do I live?');
    expect(echoed).not.toContain(quoted(MEMORY_OPENING));
    expect(response.headers.get('x-mnemo-memories')).toBeNull();
  });

  test('chat completions, whole and streamed: the store recalled into a system message of its own', async () => {
    const client = world.client({ 'x-mnemo-memory': 'read' });
    const whole = await client.chat.completions
      .create({ model: ECHO[kind], messages: ask })
      .withResponse();
    expect(whole.data.choices[0]?.message.content).toContain(quoted(block));
    expect(whole.response.headers.get('x-mnemo-memories')).toBe(`${seats},${paris}`);

    const streamed = await client.chat.completions
      .create({ model: ECHO[kind], messages: ask, stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of streamed.data) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toContain(quoted(block));
    expect(streamed.response.headers.get('x-mnemo-memories')).toBe(`${seats},${paris}`);
  });

  test('responses, whole and streamed', async () => {
    const client = world.client({ 'x-mnemo-memory': 'read' });
    const request = { model: ECHO[kind], instructions: 'Be brief.', input: 'Where do I live?' };
    const whole = await client.responses.create(request).withResponse();
    expect(whole.data.output_text).toContain(quoted(block));
    expect(whole.response.headers.get('x-mnemo-memories')).toBe(`${seats},${paris}`);

    const streamed = await client.responses.create({ ...request, stream: true }).withResponse();
    let text = '';
    for await (const event of streamed.data) {
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(text).toContain(quoted(block));
    expect(streamed.response.headers.get('x-mnemo-memories')).toBe(`${seats},${paris}`);
  });

  test('the AI SDK: chat (OpenAI-compatible provider) and responses (OpenAI provider), whole and streamed', async () => {
    const headers = { 'x-mnemo-memory': 'read' };
    const compatible = createOpenAICompatible({
      name: 'mnemo',
      baseURL: world.gateway.baseUrl,
      apiKey: world.gateway.apiKey,
    });
    const openai = createOpenAI({ baseURL: world.gateway.baseUrl, apiKey: world.gateway.apiKey });
    for (const model of [compatible.chatModel(ECHO[kind]), openai.responses(ECHO[kind])]) {
      const whole = await generateText({
        model,
        system: 'Be brief.',
        prompt: 'Where do I live?',
        headers,
      });
      expect(whole.text).toContain(quoted(block));
      expect(whole.response.headers?.['x-mnemo-memories']).toBe(`${seats},${paris}`);
      const streamed = streamText({
        model,
        system: 'Be brief.',
        prompt: 'Where do I live?',
        headers,
      });
      expect(await streamed.text).toContain(quoted(block));
      expect((await streamed.response).headers?.['x-mnemo-memories']).toBe(`${seats},${paris}`);
    }
  });

  test('read-write: the answer first; then the changed fact updates its memory, the new one is added, and a pull sees both', async () => {
    const before = await world.memories();
    const { data, response } = await world
      .client({ 'x-mnemo-memory': 'read-write' })
      .chat.completions.create({
        model: ECHO[kind],
        messages: [
          { role: 'user', content: 'Hi!' },
          { role: 'assistant', content: 'Hello! I am happy to help.' },
          { role: 'user', content: 'I live in Berlin now. I prefer aisle seats. Is it raining?' },
        ],
      })
      .withResponse();
    expect(response.status).toBe(200);
    expect(data.choices[0]?.message.content).toContain(quoted(block));
    await world.learned();

    const extraction = world.upstream(kind).at(-1) ?? {};
    expect(JSON.stringify(extraction)).toContain(
      quoted('"new_user_turns":["I live in Berlin now. I prefer aisle seats. Is it raining?"]'),
    );
    const after = await world.memories();
    const added = after.memories.find((memory) => memory.content === 'I prefer aisle seats.');
    expect(after.memories.map(({ id, content, category }) => ({ id, content, category }))).toEqual([
      { id: paris, content: 'I live in Berlin now.', category: 'identity' },
      { id: seats, content: 'Prefers window seats.', category: 'preference' },
      { id: added?.id, content: 'I prefer aisle seats.', category: 'preference' },
    ]);
    const pulled = await world.memories(`?since=${encodeURIComponent(before.cursor)}`);
    expect(pulled.memories.map((memory) => memory.content).sort()).toEqual([
      'I live in Berlin now.',
      'I prefer aisle seats.',
    ]);

    const calls = await world.gateway.calls(
      (rows) => rows.length >= 2 && rows.at(-1)?.kind === 'extraction',
    );
    expect(
      calls.slice(-2).map(({ model, kind: which, status }) => ({ model, kind: which, status })),
    ).toEqual([
      { model: ECHO[kind], kind: 'chat', status: 200 },
      { model: EXTRACTOR[kind], kind: 'extraction', status: 200 },
    ]);
    const byKind = await world.gateway.usageReport('kind');
    expect(byKind.groups.map((group) => group.key)).toEqual(['chat', 'extraction']);
  });

  test('a proposal that repeats a memory folds into it: one memory, no second', async () => {
    const count = (await world.memories()).memories.length;
    world.text(kind, 'Noted.');
    world.json(kind, {
      proposals: [
        { action: 'add', id: '', content: 'i prefer  aisle seats', category: 'preference' },
      ],
    });
    const answer = await world.client({ 'x-mnemo-memory': 'read-write' }).chat.completions.create({
      model: ECHO[kind],
      messages: [{ role: 'user', content: 'Aisle, please.' }],
    });
    expect(answer.choices[0]?.message.content).toBe('Noted.');
    await world.learned();
    const after = await world.memories();
    expect(after.memories).toHaveLength(count);
    expect(
      after.memories.filter((memory) => memory.content === 'I prefer aisle seats.'),
    ).toHaveLength(1);
  });

  test('an extraction that fails or answers no document of its schema changes neither the answer nor the store', async () => {
    const before = await world.memories();
    const client = world.client({ 'x-mnemo-memory': 'read-write' });
    world.text(kind, 'Sure.');
    world.error(kind, 500);
    const first = await client.chat.completions.create({
      model: ECHO[kind],
      messages: [{ role: 'user', content: 'I am a pilot.' }],
    });
    expect(first.choices[0]?.message.content).toBe('Sure.');
    // The simulator answers in turn: the failed extraction first.
    await world.learned();
    world.text(kind, 'Okay.');
    world.json(kind, { proposals: [{ action: 'add', content: 'I am a pilot.' }] });
    const second = await client.chat.completions.create({
      model: ECHO[kind],
      messages: [{ role: 'user', content: 'I am a pilot.' }],
    });
    expect(second.choices[0]?.message.content).toBe('Okay.');
    await world.learned();
    expect(await world.memories()).toEqual(before);
    const calls = await world.gateway.calls(
      (rows) => rows.filter((row) => row.kind === 'extraction').length >= 4,
    );
    expect(
      calls
        .filter((row) => row.kind === 'extraction')
        .map((row) => row.status)
        .slice(-2),
    ).toEqual([500, 200]);
  });

  test('the router: recalled the same way, whichever model answers', async () => {
    const { data, response } = await world
      .client({ 'x-mnemo-memory': 'read' })
      .chat.completions.create({ model: 'auto', messages: ask })
      .withResponse();
    // The router's first echo model, unless an earlier failure of its provider opened its circuit.
    expect(Object.values(ECHO)).toContain(response.headers.get('x-mnemo-model'));
    expect(data.choices[0]?.message.content).toContain(quoted(MEMORY_OPENING));
  });
});
