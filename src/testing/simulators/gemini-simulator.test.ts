import {
  ApiError,
  type Content,
  type GenerateContentResponse,
  GoogleGenAI,
  ThinkingLevel,
} from '@google/genai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GeminiSimulator, startGeminiSimulator } from './gemini-simulator.ts';
import { EXTRACTION_EXAMPLE } from './simulated-extraction.ts';

const apiKey = 'gemini-test-key';
let sim: GeminiSimulator;
let ai: GoogleGenAI;

beforeEach(async () => {
  sim = await startGeminiSimulator({ apiKey });
  ai = new GoogleGenAI({ apiKey, apiVersion: 'v1beta', httpOptions: { baseUrl: sim.baseUrl } });
});

afterEach(async () => {
  await sim.close();
});

const model = 'gemini-2.5-flash';
const contents = [{ role: 'user', parts: [{ text: 'Hello there' }] }];
const config = { systemInstruction: 'Be brief.' };

describe('Gemini simulator', () => {
  it('answers generateContent with candidates, usage, model version and response id', async () => {
    sim.script({ kind: 'text', text: 'Hi! How can I help?' });
    const response = await ai.models.generateContent({
      model,
      contents,
      config: { ...config, candidateCount: 2 },
    });

    expect(response.text).toBe('Hi! How can I help?');
    expect(response.candidates).toHaveLength(2);
    expect(response.candidates?.[1]).toMatchObject({
      index: 1,
      content: { role: 'model', parts: [{ text: 'Hi! How can I help?' }] },
      finishReason: 'STOP',
    });
    // ceil(("Be brief." + "Hello there").length / 4) = 5; ceil(19 / 4) = 5 per candidate.
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 5,
      candidatesTokenCount: 10,
      totalTokenCount: 15,
    });
    expect(response.modelVersion).toBe(model);
    expect(response.responseId).toMatch(/^[\w-]{22}$/);
  });

  it('echoes the last user text when nothing is scripted', async () => {
    const response = await ai.models.generateContent({ model, contents: 'Echo me' });
    expect(response.text).toBe('You said: Echo me');
  });

  it('streams text in pieces, the finish reason and the whole usage on the last', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    sim.script({ kind: 'text', text, usage: { thoughtsTokenCount: 7 } });
    const stream = await ai.models.generateContentStream({ model, contents, config });
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks).toHaveLength(9);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(text);
    expect(
      chunks.slice(0, -1).every((chunk) => chunk.candidates?.[0]?.finishReason === undefined),
    ).toBe(true);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks[0]?.usageMetadata).toMatchObject({ promptTokenCount: 5, totalTokenCount: 5 });
    expect(chunks.at(-1)?.usageMetadata).toMatchObject({
      promptTokenCount: 5,
      candidatesTokenCount: 11,
      thoughtsTokenCount: 7,
      totalTokenCount: 23,
    });
    expect(new Set(chunks.map((chunk) => chunk.responseId)).size).toBe(1);
    expect(sim.requests[0]).toMatchObject({ model, stream: true, search: '?alt=sse' });
  });

  it('answers function calls the SDK exposes as functionCalls, signature and id kept', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [
        { name: 'get_weather', args: { city: 'Paris' }, thoughtSignature: 'c2lnbmVk' },
        { name: 'get_time', args: { timezone: 'Europe/Paris' }, id: 'fc-2' },
      ],
    });
    const response = await ai.models.generateContent({
      model,
      contents,
      config: {
        tools: [
          {
            functionDeclarations: [
              { name: 'get_weather', parametersJsonSchema: { type: 'object' } },
              { name: 'get_time', parametersJsonSchema: { type: 'object' } },
            ],
          },
        ],
      },
    });

    expect(response.functionCalls).toEqual([
      { name: 'get_weather', args: { city: 'Paris' } },
      { id: 'fc-2', name: 'get_time', args: { timezone: 'Europe/Paris' } },
    ]);
    expect(response.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature).toBe('c2lnbmVk');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('streams function calls one per event', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [
        { name: 'a', args: { n: 1 } },
        { name: 'b', args: { n: 2 } },
      ],
    });
    const stream = await ai.models.generateContentStream({ model, contents });
    const calls: unknown[] = [];
    for await (const chunk of stream) calls.push(...(chunk.functionCalls ?? []));
    expect(calls).toEqual([
      { name: 'a', args: { n: 1 } },
      { name: 'b', args: { n: 2 } },
    ]);
  });

  it('reports a blocked prompt in promptFeedback, without candidates', async () => {
    sim.script({ kind: 'blocked', blockReason: 'PROHIBITED_CONTENT' });
    const response = await ai.models.generateContent({ model, contents });
    expect(response.candidates).toBeUndefined();
    expect(response.promptFeedback?.blockReason).toBe('PROHIBITED_CONTENT');
    expect(response.usageMetadata?.promptTokenCount).toBe(3);
  });

  it("refuses a wrong key with Google's 400 API_KEY_INVALID", async () => {
    const wrong = new GoogleGenAI({
      apiKey: 'nope',
      apiVersion: 'v1beta',
      httpOptions: { baseUrl: sim.baseUrl },
    });
    const error = await wrong.models.generateContent({ model, contents }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    const message = 'API key not valid. Please pass a valid API key.';
    expect(JSON.parse(error.message)).toEqual({
      error: {
        code: 400,
        message,
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
            metadata: { service: 'generativelanguage.googleapis.com' },
          },
          { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
        ],
      },
    });
    expect(sim.requests).toHaveLength(0);
  });

  it('takes the key from ?key= too, and refuses a request without one with 403', async () => {
    const url = `${sim.baseUrl}/v1beta/models/${model}:generateContent`;
    const init = { method: 'POST', body: JSON.stringify({ contents }) };
    const withQuery = await fetch(`${url}?key=${apiKey}`, init);
    expect(withQuery.status).toBe(200);
    const without = await fetch(url, init);
    expect(without.status).toBe(403);
    expect(await without.json()).toMatchObject({
      error: { code: 403, status: 'PERMISSION_DENIED' },
    });
  });

  it('refuses a request without contents with 400 INVALID_ARGUMENT', async () => {
    const response = await fetch(`${sim.baseUrl}/v1beta/models/${model}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': apiKey },
      body: JSON.stringify({ generationConfig: {} }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        code: 400,
        message: '* GenerateContentRequest.contents: contents is not specified\n',
        status: 'INVALID_ARGUMENT',
      },
    });
  });

  it('answers a scripted 429 that the SDK throws as ApiError with its status', async () => {
    sim.script({ kind: 'error', status: 429 });
    const error = await ai.models.generateContent({ model, contents }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(429);
    expect(JSON.parse(error.message).error.status).toBe('RESOURCE_EXHAUSTED');
  });

  it('sends an error event mid-stream that the SDK throws', async () => {
    sim.script({ kind: 'error-mid-stream', text: 'Half an answer' });
    const stream = await ai.models.generateContentStream({ model, contents });
    let received = '';
    const error = await (async () => {
      for await (const chunk of stream) received += chunk.text ?? '';
    })().catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(500);
    expect(received).toBe('Half an answer');
  });

  it('streams a JSON array when alt=sse is not asked for', async () => {
    sim.script({ kind: 'text', text: 'one two' });
    const response = await fetch(`${sim.baseUrl}/v1beta/models/${model}:streamGenerateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': apiKey },
      body: JSON.stringify({ contents }),
    });
    const events = (await response.json()) as { candidates: { content: { parts: unknown[] } }[] }[];
    expect(events.map((event) => event.candidates[0]?.content.parts)).toEqual([
      [{ text: 'one ' }],
      [{ text: 'two' }],
    ]);
  });

  it('drops the connection when scripted to', async () => {
    sim.script({ kind: 'drop' });
    const error = await ai.models.generateContent({ model, contents }).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ApiError);
  });

  it('hangs until the client gives up', async () => {
    sim.script({ kind: 'hang' });
    const impatient = new GoogleGenAI({
      apiKey,
      apiVersion: 'v1beta',
      httpOptions: { baseUrl: sim.baseUrl, timeout: 200 },
    });
    const started = Date.now();
    const error = await impatient.models.generateContent({ model, contents }).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('thinks: thought parts when asked for, a signed answer, and the thoughts counted', async () => {
    const thinking = { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } };
    sim.script({ kind: 'text', text: 'Paris.', thoughts: 'The capital of France.' });
    const response = await ai.models.generateContent({ model, contents, config: thinking });
    const parts = response.candidates?.[0]?.content?.parts ?? [];
    expect(parts).toEqual([
      { text: 'The capital of France.', thought: true },
      { text: 'Paris.', thoughtSignature: expect.stringMatching(/^[A-Za-z0-9+/]{32}$/) },
    ]);
    expect(response.text).toBe('Paris.');
    // ceil(22 / 4) thoughts; ceil(6 / 4) answer; 3 prompt.
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 3,
      candidatesTokenCount: 2,
      thoughtsTokenCount: 6,
      totalTokenCount: 11,
    });
    expect(sim.requests[0]?.body.generationConfig).toEqual(thinking);

    // Without includeThoughts the model still thinks and signs, but sends no thoughts.
    sim.script({ kind: 'text', text: 'Paris.', thoughts: 'The capital of France.' });
    const quiet = await ai.models.generateContent({ model, contents });
    expect(quiet.candidates?.[0]?.content?.parts).toEqual([
      { text: 'Paris.', thoughtSignature: expect.any(String) },
    ]);
    expect(quiet.usageMetadata?.thoughtsTokenCount).toBe(6);

    // A budget of 0 stops 2.5 Flash thinking: no thoughts, no signature, none counted.
    sim.script({ kind: 'text', text: 'Paris.', thoughts: 'The capital of France.' });
    const off = await ai.models.generateContent({
      model,
      contents,
      config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 0 } },
    });
    expect(off.candidates?.[0]?.content?.parts).toEqual([{ text: 'Paris.' }]);
    expect(off.usageMetadata?.thoughtsTokenCount).toBeUndefined();
  });

  it('streams thoughts first, then the answer, the signature on its last piece', async () => {
    sim.script({ kind: 'text', text: 'Paris it is.', thoughts: 'France has a capital.' });
    const stream = await ai.models.generateContentStream({
      model,
      contents,
      config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } },
    });
    const parts: unknown[] = [];
    for await (const chunk of stream) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    expect(parts).toEqual([
      { text: 'France ', thought: true },
      { text: 'has ', thought: true },
      { text: 'a ', thought: true },
      { text: 'capital.', thought: true },
      { text: 'Paris ' },
      { text: 'it ' },
      { text: 'is.', thoughtSignature: expect.any(String) },
    ]);
  });

  it('takes a signed call back signed, and as Gemini 3 refuses it unsigned or forged', async () => {
    const gemini3 = 'gemini-3-pro-preview';
    const tools = [{ functionDeclarations: [{ name: 'get_weather' }, { name: 'get_time' }] }];
    sim.script({
      kind: 'tool_calls',
      thoughts: 'Both, at once.',
      calls: [
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_time', args: {} },
      ],
    });
    const config = {
      tools,
      thinkingConfig: { includeThoughts: true, thinkingLevel: ThinkingLevel.HIGH },
    };
    const first = await ai.models.generateContent({ model: gemini3, contents, config });
    const [thought, weather, time] = first.candidates?.[0]?.content?.parts ?? [];
    expect(thought).toEqual({ text: 'Both, at once.', thought: true });
    // A parallel step is signed on its first call only.
    expect(weather?.thoughtSignature).toEqual(expect.any(String));
    expect(time?.thoughtSignature).toBeUndefined();
    const call = weather?.functionCall;
    if (call === undefined) throw new Error('expected a function call');

    const results: Content = {
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { sky: 'clear' } } },
        { functionResponse: { name: 'get_time', response: { result: '10:00' } } },
      ],
    };
    const continued = (modelParts: object[]) =>
      ai.models
        .generateContent({
          model: gemini3,
          contents: [...contents, { role: 'model', parts: modelParts }, results],
          config,
        })
        .catch((error: unknown) => error);

    sim.script({ kind: 'text', text: 'Clear, 10:00.' });
    const answered = await continued([weather ?? {}, time ?? {}]);
    expect((answered as GenerateContentResponse).text).toBe('Clear, 10:00.');

    const unsigned = await continued([{ functionCall: call }, time ?? {}]);
    expect(unsigned).toBeInstanceOf(ApiError);
    expect(JSON.parse((unsigned as ApiError).message)).toEqual({
      error: {
        code: 400,
        message:
          'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
        status: 'INVALID_ARGUMENT',
      },
    });

    const forged = await continued([{ ...weather, thoughtSignature: 'Zm9yZ2Vk' }, time ?? {}]);
    expect(JSON.parse((forged as ApiError).message)).toEqual({
      error: { code: 400, message: 'Corrupted thought signature.', status: 'INVALID_ARGUMENT' },
    });

    // Gemini 2.5 takes an unsigned call of the current turn.
    sim.script({ kind: 'text', text: 'Fine.' });
    const history: Content[] = [
      ...contents,
      { role: 'model', parts: [{ functionCall: call }] },
      results,
    ];
    const older = await ai.models.generateContent({ model, contents: history });
    expect(older.text).toBe('Fine.');
  });

  it('refuses a thinking config outside the model’s documented range', async () => {
    const refusal = async (target: string, thinkingConfig: object) => {
      const error = await ai.models
        .generateContent({ model: target, contents, config: { thinkingConfig } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      return JSON.parse((error as ApiError).message).error.message;
    };
    expect(await refusal('gemini-2.5-pro', { thinkingBudget: 0 })).toBe(
      'Budget 0 is invalid. This model only works in thinking mode.',
    );
    expect(await refusal('gemini-2.5-flash-lite', { thinkingBudget: 100 })).toBe(
      'The thinking budget 100 is invalid. Please choose a value between 512 and 24576.',
    );
    expect(await refusal('gemini-3-pro-preview', { thinkingLevel: ThinkingLevel.MEDIUM })).toBe(
      'Thinking level MEDIUM is not supported for this model. Please retry with other thinking level',
    );
    expect(await refusal('gemini-2.5-flash', { thinkingLevel: ThinkingLevel.LOW })).toBe(
      'Thinking level is not supported for this model.',
    );
  });

  it('records the requests as sent', async () => {
    await ai.models.generateContent({
      model,
      contents,
      config: { ...config, temperature: 0.2, maxOutputTokens: 50 },
    });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]).toMatchObject({
      method: 'POST',
      path: `/v1beta/models/${model}:generateContent`,
      model,
      stream: false,
      body: {
        contents,
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        generationConfig: { temperature: 0.2, maxOutputTokens: 50 },
      },
    });
    expect(sim.requests[0]?.headers['x-goog-api-key']).toBe(apiKey);
  });
});

describe('Gemini simulator: embeddings', () => {
  const dot = (a: readonly number[], b: readonly number[]) =>
    a.reduce((sum, value, i) => sum + value * (b[i] as number), 0);

  it('answers the SDK’s embedContent (batchEmbedContents) in order; near texts nearer', async () => {
    const response = await ai.models.embedContent({
      model: 'gemini-embedding-001',
      contents: ['Works as a programmer', 'is learning programming', 'Likes green tea'],
      config: { taskType: 'RETRIEVAL_DOCUMENT' },
    });
    expect(sim.requests[0]).toMatchObject({
      path: '/v1beta/models/gemini-embedding-001:batchEmbedContents',
      rpc: 'batchEmbedContents',
      body: {
        requests: [
          {
            model: 'models/gemini-embedding-001',
            content: { parts: [{ text: 'Works as a programmer' }] },
            taskType: 'RETRIEVAL_DOCUMENT',
          },
          expect.anything(),
          expect.anything(),
        ],
      },
    });
    const [programmer, programming, tea] = (response.embeddings ?? []).map(
      (embedding) => embedding.values ?? [],
    );
    expect(programmer).toHaveLength(3072);
    expect(dot(programmer ?? [], programmer ?? [])).toBeCloseTo(1, 5);
    expect(dot(programmer ?? [], programming ?? [])).toBeGreaterThan(
      dot(programmer ?? [], tea ?? []) + 0.15,
    );
  });

  it('fewer dimensions are not of unit length, as Google documents', async () => {
    const response = await ai.models.embedContent({
      model: 'gemini-embedding-001',
      contents: 'Likes green tea',
      config: { outputDimensionality: 768 },
    });
    const values = response.embeddings?.[0]?.values ?? [];
    expect(values).toHaveLength(768);
    expect(Math.sqrt(dot(values, values))).toBeCloseTo(0.5, 5);
  });

  it('embedContent of one content, over the REST path', async () => {
    const res = await fetch(`${sim.baseUrl}/v1beta/models/gemini-embedding-001:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { parts: [{ text: 'Likes green tea' }] } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { embedding: { values: number[] } };
    expect(body.embedding.values).toHaveLength(3072);
  });

  it.each([
    [
      'a model that does not embed',
      { model: 'gemini-2.5-flash', contents: 'x' },
      404,
      /is not found for API version v1beta, or is not supported for batchEmbedContents/,
    ],
    [
      'a task type it does not know',
      { model: 'gemini-embedding-001', contents: 'x', config: { taskType: 'SUMMARY' } },
      400,
      /Invalid value at 'requests\[0\]\.task_type'/,
    ],
    [
      'more dimensions than the model has',
      { model: 'gemini-embedding-001', contents: 'x', config: { outputDimensionality: 4096 } },
      400,
      /output_dimensionality/,
    ],
    [
      'more than 100 requests',
      { model: 'gemini-embedding-001', contents: Array.from({ length: 101 }, () => 'x') },
      400,
      /at most 100 requests/,
    ],
  ])('refuses %s', async (_name, params, status, message) => {
    const error = await ai.models
      .embedContent(params as Parameters<typeof ai.models.embedContent>[0])
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(status);
    expect(error.message).toMatch(message);
  });

  it('a request naming another model than the URL’s is refused', async () => {
    const res = await fetch(
      `${sim.baseUrl}/v1beta/models/gemini-embedding-001:batchEmbedContents`,
      {
        method: 'POST',
        headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'x' }] } }],
        }),
      },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('an outage fails every request until it ends', async () => {
    sim.outage({ kind: 'error', status: 503 });
    const error = await ai.models
      .embedContent({ model: 'gemini-embedding-001', contents: 'x' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(503);
    sim.outage();
    const response = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: 'x' });
    expect(response.embeddings).toHaveLength(1);
  });
});

describe('Gemini simulator: the echo and extraction models', () => {
  const extractionPrompt = EXTRACTION_EXAMPLE.prompt;
  // The item schema has a store, so each proposal names the user's store.
  const proposals = {
    proposals: EXTRACTION_EXAMPLE.proposals.map((proposal) => ({ ...proposal, store: 'user' })),
  };
  const extraction = {
    model,
    contents: [
      { role: 'user', parts: [{ text: 'Hello there' }] },
      { role: 'model', parts: [{ text: 'Hi!' }] },
      { role: 'user', parts: [{ text: extractionPrompt }] },
    ],
    config: {
      systemInstruction: 'Extract memories.',
      responseMimeType: 'application/json',
      responseJsonSchema: {
        type: 'object',
        properties: {
          proposals: {
            type: 'array',
            items: { type: 'object', properties: { store: { enum: ['user', 'project'] } } },
          },
        },
      },
    },
  };

  it('an echo model answers the request body as JSON text, whole', async () => {
    const response = await ai.models.generateContent({
      model: 'gemini-echo',
      contents,
      config: { ...config, temperature: 0.2 },
    });
    const text = response.text ?? '';
    const sent = JSON.parse(text);
    expect(sent).toEqual(sim.requests[0]?.body);
    expect(sent.systemInstruction.parts).toEqual([{ text: 'Be brief.' }]);
    expect(sent.contents).toEqual(contents);
    expect(sent.generationConfig).toEqual({ temperature: 0.2 });
    expect(response.modelVersion).toBe('gemini-echo');
    // The usual estimate: ceil(20 / 4) for the prompt, the JSON text's length for the answer.
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 5,
      candidatesTokenCount: Math.ceil(text.length / 4),
    });
  });

  it('an echo model streams the body in pieces that join back to it', async () => {
    const stream = await ai.models.generateContentStream({ model: 'echo', contents, config });
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((chunk) => chunk.text).join('');
    expect(chunks.length).toBeGreaterThan(1);
    expect(text).toBe(JSON.stringify(sim.requests[0]?.body));
    expect(JSON.parse(text).systemInstruction.parts).toEqual([{ text: 'Be brief.' }]);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('a script still comes first', async () => {
    sim.script({ kind: 'text', text: 'Scripted' });
    const scripted = await ai.models.generateContent({ model: 'gemini-echo', contents });
    expect(scripted.text).toBe('Scripted');
    sim.script({ kind: 'text', text: 'Scripted again' });
    expect((await ai.models.generateContent(extraction)).text).toBe('Scripted again');
  });

  it('an extraction call gets the proposals as one JSON text part', async () => {
    const response = await ai.models.generateContent(extraction);
    const text = JSON.stringify(proposals);
    expect(response.candidates?.[0]?.content?.parts).toEqual([{ text }]);
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata?.candidatesTokenCount).toBe(Math.ceil(text.length / 4));
  });

  it('an extraction call streams the proposals in pieces', async () => {
    const stream = await ai.models.generateContentStream(extraction);
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(JSON.stringify(proposals));
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('a JSON schema without proposals gets the plain echo of the last user text', async () => {
    const response = await ai.models.generateContent({
      ...extraction,
      config: { ...extraction.config, responseJsonSchema: { type: 'object', properties: {} } },
    });
    expect(response.text).toBe(`You said: ${extractionPrompt}`);
  });
});
