/**
 * `/v1` as the Vercel AI SDK meets it through its OpenAI-compatible provider, over each provider
 * kind: text whole and streamed with usage, tool calls, images, and the router.
 */
import { createOpenAICompatible, type OpenAICompatibleProvider } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, streamText, tool } from 'ai';
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
let mnemo: OpenAICompatibleProvider;

beforeAll(async () => {
  setup = await startClientsGateway();
  mnemo = createOpenAICompatible({
    name: 'mnemo',
    baseURL: setup.gateway.baseUrl,
    apiKey: setup.gateway.apiKey,
    includeUsage: true,
  });
});
afterAll(async () => {
  await setup?.close();
});

const weatherCalls: ScriptedCall[] = [
  { id: 'call_paris', name: 'get_weather', args: { city: 'Paris' } },
  { id: 'call_oslo', name: 'get_weather', args: { city: 'Oslo' } },
];

/** How the provider receives a user turn of text and a PNG. */
const userTurnWithImage: Record<ProviderKind, (text: string) => object> = {
  openai: (text) => ({
    messages: [{ role: 'user', content: [{ type: 'text', text }, UPSTREAM_PNG.openai] }],
  }),
  anthropic: (text) => ({
    messages: [{ role: 'user', content: [{ type: 'text', text }, UPSTREAM_PNG.anthropic] }],
  }),
  gemini: (text) => ({ contents: [{ role: 'user', parts: [{ text }, UPSTREAM_PNG.gemini] }] }),
};

describe.each(KINDS)('through a provider of kind %s', (kindName) => {
  const kind = () => setup.kinds[kindName];
  const model = () => mnemo.chatModel(kind().model);

  test('generateText: the text, the provider’s usage, the catalog id', async () => {
    kind().text('Bonjour à tous.', { prompt: 21, completion: 4 });
    const result = await generateText({
      model: model(),
      prompt: 'Say hello in French.',
      maxRetries: 0,
    });
    expect(result.text).toBe('Bonjour à tous.');
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject({ inputTokens: 21, outputTokens: 4, totalTokens: 25 });
    expect(result.response.modelId).toBe(kind().model);
  });

  test('streamText: the text stream reassembles exactly; usage resolves', async () => {
    const text = 'One, two, three, four, five.';
    kind().text(text, { prompt: 22, completion: 9 });
    const result = streamText({ model: model(), prompt: 'Count to five.', maxRetries: 0 });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(text);
    expect(await result.finishReason).toBe('stop');
    expect(await result.usage).toMatchObject({
      inputTokens: 22,
      outputTokens: 9,
      totalTokens: 31,
    });
    expect((await result.response).modelId).toBe(kind().model);
  });

  test('streamText with tools: two calls with their exact inputs', async () => {
    kind().toolCalls(weatherCalls);
    const result = streamText({
      model: model(),
      prompt: 'Weather in Paris and Oslo?',
      tools: {
        get_weather: tool({
          description: 'The current weather in a city',
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          }),
        }),
      },
      maxRetries: 0,
    });
    const calls = await result.toolCalls;
    expect(
      calls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
    ).toEqual(
      weatherCalls.map((call) => ({ toolCallId: call.id, toolName: call.name, input: call.args })),
    );
    expect(await result.finishReason).toBe('tool-calls');
  });

  test('an image, as an image part or an image file, reaches the provider as its image part', async () => {
    const png = Uint8Array.from(Buffer.from(PNG_BASE64, 'base64'));
    const asImage = { type: 'image' as const, image: png };
    const asFile = { type: 'file' as const, data: png, mediaType: 'image/png' };
    for (const part of [asImage, asFile]) {
      kind().text('A single transparent pixel.');
      const result = await generateText({
        model: model(),
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'What is in this image?' }, part] },
        ],
        maxRetries: 0,
      });
      expect(result.text).toBe('A single transparent pixel.');
      expect(kind().requests.at(-1)?.body).toMatchObject(
        userTurnWithImage[kindName]('What is in this image?'),
      );
    }
  });

  test('auto passes over the failing models; the one that answered is named and charged', async () => {
    const earlier = kindsBefore(kindName).map((name) => setup.kinds[name]);
    // Token counts no other case uses, to find these calls among the recorded ones.
    const wholeUsage = { prompt: 3333, completion: 33 };
    const streamUsage = { prompt: 4444, completion: 44 };

    for (const other of earlier) other.outage();
    kind().text('Routed whole', wholeUsage);
    const whole = await generateText({
      model: mnemo.chatModel('auto'),
      prompt: 'Who answers?',
      maxRetries: 0,
    });
    expect(whole.text).toBe('Routed whole');
    expect(whole.response.modelId).toBe(kind().model);
    expect(whole.response.headers?.['x-mnemo-model']).toBe(kind().model);
    expect(whole.response.headers?.['x-mnemo-route']).toMatch(routeExplanation(kind(), earlier));

    for (const other of earlier) other.outage();
    kind().text('Routed stream', streamUsage);
    const streamed = streamText({
      model: mnemo.chatModel('auto'),
      prompt: 'Who answers now?',
      maxRetries: 0,
    });
    expect(await streamed.text).toBe('Routed stream');
    expect(await streamed.usage).toMatchObject({ inputTokens: 4444, outputTokens: 44 });
    const response = await streamed.response;
    expect(response.modelId).toBe(kind().model);
    expect(response.headers?.['x-mnemo-model']).toBe(kind().model);
    expect(response.headers?.['x-mnemo-route']).toMatch(routeExplanation(kind(), earlier));

    const calls = await setup.gateway.calls((recorded) =>
      [wholeUsage, streamUsage].every((usage) =>
        recorded.some((call) => call.model === kind().model && call.promptTokens === usage.prompt),
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
    expect(calls.map((call) => call.model)).not.toContain('auto');
    expect(calls.map((call) => call.model)).not.toContain(UNREACHABLE_MODEL);
  });
});
