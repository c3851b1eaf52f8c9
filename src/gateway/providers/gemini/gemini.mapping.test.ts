import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest } from '../../chat.schemas.ts';
import { toGenerateContentRequest } from './gemini.mapping.ts';

const flash = { upstream: 'gemini-2.5-flash', reasoning: true };

const request = (messages: ChatMessage[], rest: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'google/gemini-2.5-flash',
  messages,
  ...rest,
});

const mapped = (messages: ChatMessage[], rest: Partial<ChatRequest> = {}) => {
  const result = toGenerateContentRequest(request(messages, rest), flash);
  if (!result.ok) throw new Error(`expected a mapping, got ${result.error.message}`);
  return result.value;
};

const refused = (messages: ChatMessage[]) => {
  const result = toGenerateContentRequest(request(messages), flash);
  if (result.ok) throw new Error('expected the mapping to refuse');
  return result.error;
};

const hello: ChatMessage = { role: 'user', content: 'Hello' };

describe('toGenerateContentRequest: messages', () => {
  it('sends a lone user message as one user turn and nothing else', () => {
    expect(mapped([hello])).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] });
  });

  it('gathers system and developer messages, wherever they stand, into systemInstruction', () => {
    expect(
      mapped([
        { role: 'system', content: 'Be brief.' },
        hello,
        { role: 'assistant', content: 'Hi.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Thanks' },
      ]),
    ).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Answer in French.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Hello' }] },
        { role: 'model', parts: [{ text: 'Hi.' }] },
        { role: 'user', parts: [{ text: 'Thanks' }] },
      ],
    });
  });

  it('merges consecutive turns of one role and leaves empty texts out', () => {
    expect(
      mapped([
        hello,
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Are you there?' },
            { type: 'text', text: '' },
          ],
        },
        { role: 'assistant', content: null },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Yes.' },
            { type: 'refusal', refusal: 'No.' },
          ],
        },
        { role: 'assistant', content: '', refusal: 'I cannot.' },
      ]),
    ).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Hello' }, { text: 'Are you there?' }] },
        { role: 'model', parts: [{ text: 'Yes.' }, { text: 'No.' }, { text: 'I cannot.' }] },
      ],
    });
  });

  it('sends data URLs inline and http(s) URLs as fileData with a MIME type from the extension', () => {
    const url = (value: string) => ({ type: 'image_url' as const, image_url: { url: value } });
    expect(
      mapped([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            url('data:image/PNG;base64,iVBORw0KGgo='),
            url('https://example.com/cat.webp?size=large#top'),
            url('http://example.com/DOG.JPG'),
            url('https://example.com/images/42'),
            url('https://example.com/anim.gif'),
          ],
        },
      ]).contents,
    ).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What is in these?' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          {
            fileData: {
              mimeType: 'image/webp',
              fileUri: 'https://example.com/cat.webp?size=large#top',
            },
          },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'http://example.com/DOG.JPG' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/images/42' } },
          { fileData: { mimeType: 'image/gif', fileUri: 'https://example.com/anim.gif' } },
        ],
      },
    ]);
  });

  it.each([
    ['ftp://example.com/cat.png', 'expected an http(s) URL or a data URL.'],
    ['not a url', 'expected an http(s) URL or a data URL.'],
    ['data:image/svg+xml,%3Csvg%3E', 'a data URL must be data:<type>;base64,<data>.'],
    ['data:;base64,AAAA', 'a data URL must be data:<type>;base64,<data>.'],
    ['data:image/png;base64,', 'a data URL must be data:<type>;base64,<data>.'],
  ])('refuses the image URL %s', (value, reason) => {
    const param = 'messages[1].content[1].image_url.url';
    expect(
      refused([
        { role: 'system', content: 'Look.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'See' },
            { type: 'image_url', image_url: { url: value } },
          ],
        },
      ]),
    ).toEqual({
      message: `Invalid value for '${param}': ${reason}`,
      type: 'invalid_request_error',
      param,
      code: 'invalid_value',
    });
  });
});

describe('toGenerateContentRequest: tool calls and results', () => {
  const weather = {
    id: 'call_weather',
    type: 'function' as const,
    function: { name: 'get_weather', arguments: '{"city":"Paris","days":[1,2]}' },
  };
  const time = {
    id: 'call_time',
    type: 'function' as const,
    function: { name: 'get_time', arguments: '' },
  };

  it('sends calls as functionCall parts and consecutive results in one user turn', () => {
    expect(
      mapped([
        hello,
        { role: 'assistant', content: 'Let me check.', tool_calls: [weather, time] },
        { role: 'tool', tool_call_id: 'call_weather', content: '{"temperature":21,"sky":"clear"}' },
        {
          role: 'tool',
          tool_call_id: 'call_time',
          content: [
            { type: 'text', text: '10:00' },
            { type: 'text', text: ' CET' },
          ],
        },
        { role: 'user', content: 'And tomorrow?' },
      ]).contents,
    ).toEqual([
      { role: 'user', parts: [{ text: 'Hello' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me check.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris', days: [1, 2] } } },
          { functionCall: { name: 'get_time', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: { name: 'get_weather', response: { temperature: 21, sky: 'clear' } },
          },
          { functionResponse: { name: 'get_time', response: { result: '10:00 CET' } } },
          { text: 'And tomorrow?' },
        ],
      },
    ]);
  });

  it('puts each signature of reasoning_details back on its part, dropping other kinds', () => {
    const signed = { ...weather, id: 'call_weather__thought__c2lnLWlk' };
    const contents = mapped([
      hello,
      {
        role: 'assistant',
        content: 'Let me check.',
        reasoning: 'Weather first.',
        reasoning_details: [
          { type: 'reasoning.text', text: 'Weather first.', format: 'gemini', index: 0 },
          { type: 'reasoning.encrypted', data: 'dGV4dA==', id: null, format: 'gemini', index: 1 },
          { type: 'reasoning.encrypted', data: 'd2VhdGhlcg==', id: signed.id, format: 'gemini' },
          { type: 'reasoning.encrypted', data: 'b3RoZXI=', id: 'call_time', format: 'anthropic' },
          { type: 'reasoning.text', text: 'x', signature: 'c2ln', format: 'anthropic' },
        ],
        tool_calls: [signed, time],
      },
      { role: 'tool', tool_call_id: signed.id, content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_time', content: '10:00' },
    ]).contents;
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        { text: 'Let me check.', thoughtSignature: 'dGV4dA==' },
        {
          functionCall: { name: 'get_weather', args: { city: 'Paris', days: [1, 2] } },
          thoughtSignature: 'd2VhdGhlcg==',
        },
        { functionCall: { name: 'get_time', args: {} } },
      ],
    });
  });

  it('takes the signature a tool call id carries when reasoning_details did not come back', () => {
    const contents = mapped([
      hello,
      { role: 'assistant', tool_calls: [{ ...weather, id: 'call_weather__thought__c2lnLWlk' }] },
      { role: 'tool', tool_call_id: 'call_weather__thought__c2lnLWlk', content: 'sunny' },
    ]).contents;
    expect(contents[1]?.parts).toEqual([
      {
        functionCall: { name: 'get_weather', args: { city: 'Paris', days: [1, 2] } },
        thoughtSignature: 'c2lnLWlk',
      },
    ]);
  });

  it('leaves out a text signature when the turn has no text', () => {
    const contents = mapped([
      hello,
      {
        role: 'assistant',
        reasoning_details: [
          { type: 'reasoning.encrypted', data: 'dGV4dA==', id: null, format: 'gemini' },
        ],
        tool_calls: [time],
      },
      { role: 'tool', tool_call_id: 'call_time', content: '10:00' },
    ]).contents;
    expect(contents[1]?.parts).toEqual([{ functionCall: { name: 'get_time', args: {} } }]);
  });

  it('wraps a result that is JSON but not an object, or no JSON at all, in { result }', () => {
    const contents = mapped([
      hello,
      { role: 'assistant', tool_calls: [weather, time] },
      { role: 'tool', tool_call_id: 'call_weather', content: '[1,2]' },
      { role: 'tool', tool_call_id: 'call_time', content: 'null' },
    ]).contents;
    expect(contents.at(-1)).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { result: '[1,2]' } } },
        { functionResponse: { name: 'get_time', response: { result: 'null' } } },
      ],
    });
  });

  it('puts the thought signature a tool call id carries back on its functionCall part', () => {
    const signed = { ...weather, id: 'call_1__thought__CiQBVKhc7+/sig==' };
    const foreign = { ...time, id: 'call_2__thought__not base64!' };
    const contents = mapped([
      hello,
      { role: 'assistant', tool_calls: [signed, foreign] },
      { role: 'tool', tool_call_id: signed.id, content: 'sunny' },
      { role: 'tool', tool_call_id: foreign.id, content: 'noon' },
    ]).contents;
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        {
          functionCall: { name: 'get_weather', args: { city: 'Paris', days: [1, 2] } },
          thoughtSignature: 'CiQBVKhc7+/sig==',
        },
        { functionCall: { name: 'get_time', args: {} } },
      ],
    });
  });

  it.each([
    ['{"city": "Par', 'unparseable'],
    ['["Paris"]', 'an array'],
    ['"Paris"', 'a string'],
  ])('refuses arguments that are not a JSON object (%s, %s)', (args) => {
    const param = 'messages[1].tool_calls[1].function.arguments';
    expect(
      refused([
        hello,
        {
          role: 'assistant',
          tool_calls: [time, { ...weather, function: { name: 'get_weather', arguments: args } }],
        },
      ]),
    ).toEqual({
      message: `Invalid value for '${param}': the arguments must be a JSON object.`,
      type: 'invalid_request_error',
      param,
      code: 'invalid_value',
    });
  });

  it('refuses a tool result that answers no call', () => {
    expect(refused([hello, { role: 'tool', tool_call_id: 'call_nowhere', content: 'x' }])).toEqual({
      message:
        "Invalid value for 'messages[1].tool_call_id': no earlier assistant message has a tool call with the id 'call_nowhere'.",
      type: 'invalid_request_error',
      param: 'messages[1].tool_call_id',
      code: 'invalid_value',
    });
  });
});

describe('toGenerateContentRequest: tools and generation settings', () => {
  it('asks a reasoning model for thoughts within the budget of the effort', () => {
    expect(mapped([hello], { reasoning_effort: 'medium' }).generationConfig).toEqual({
      thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
    });
    const gemini3 = toGenerateContentRequest(request([hello], { reasoning_effort: 'low' }), {
      upstream: 'gemini-3-pro-preview',
      reasoning: true,
    });
    expect(gemini3.ok && gemini3.value.generationConfig).toEqual({
      thinkingConfig: { includeThoughts: true, thinkingLevel: 'LOW' },
    });
    expect(mapped([hello]).generationConfig).toBeUndefined();
  });

  it('declares tools with their JSON Schema as parametersJsonSchema, untouched', () => {
    const parameters = {
      type: 'object',
      properties: { city: { type: 'string', const: 'Paris' }, unit: { $ref: '#/$defs/unit' } },
      $defs: { unit: { enum: ['C', 'F'] } },
      required: ['city'],
      additionalProperties: false,
    };
    expect(
      mapped([hello], {
        tools: [
          {
            type: 'function',
            function: { name: 'get_weather', description: 'The weather', parameters, strict: true },
          },
          { type: 'function', function: { name: 'ping' } },
        ],
      }).tools,
    ).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'The weather', parametersJsonSchema: parameters },
          { name: 'ping' },
        ],
      },
    ]);
  });

  it.each([
    ['none', { mode: 'NONE' }],
    ['auto', { mode: 'AUTO' }],
    ['required', { mode: 'ANY' }],
    [
      { type: 'function', function: { name: 'get_weather' } },
      { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    ],
  ] as const)('maps tool_choice %j to functionCallingConfig', (choice, config) => {
    expect(mapped([hello], { tool_choice: choice }).toolConfig).toEqual({
      functionCallingConfig: config,
    });
  });

  it('maps the sampling fields to generationConfig, max_completion_tokens first', () => {
    expect(
      mapped([hello], {
        max_tokens: 100,
        max_completion_tokens: 50,
        stop: ['END', 'STOP'],
        temperature: 0.3,
        top_p: 0.9,
        seed: 7,
        n: 2,
      }).generationConfig,
    ).toEqual({
      maxOutputTokens: 50,
      stopSequences: ['END', 'STOP'],
      temperature: 0.3,
      topP: 0.9,
      seed: 7,
      candidateCount: 2,
    });
    expect(
      mapped([hello], { max_tokens: 100, stop: 'END', temperature: 0 }).generationConfig,
    ).toEqual({
      maxOutputTokens: 100,
      stopSequences: ['END'],
      temperature: 0,
    });
  });

  it('sends no generationConfig when every field is null or absent', () => {
    expect(
      mapped([hello], {
        max_tokens: null,
        stop: null,
        temperature: null,
        top_p: null,
        n: null,
        seed: null,
        response_format: { type: 'text' },
        parallel_tool_calls: false,
        user: 'someone',
      }),
    ).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] });
  });

  it('asks for JSON, with the schema for json_schema', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    expect(mapped([hello], { response_format: { type: 'json_object' } }).generationConfig).toEqual({
      responseMimeType: 'application/json',
    });
    expect(
      mapped([hello], {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'reply', schema, strict: true },
        },
      }).generationConfig,
    ).toEqual({ responseMimeType: 'application/json', responseJsonSchema: schema });
    expect(
      mapped([hello], { response_format: { type: 'json_schema', json_schema: { name: 'reply' } } })
        .generationConfig,
    ).toEqual({ responseMimeType: 'application/json' });
  });
});
