import { describe, expect, it } from 'vitest';
import {
  finishReasonOf,
  isGenerateContentResponse,
  toChatCompletion,
  usageOf,
} from './gemini.response.ts';
import type { GenerateContentResponse } from './gemini.types.ts';

const modelId = 'google/gemini-2.5-flash';

const completed = (response: GenerateContentResponse) => {
  const outcome = toChatCompletion(response, modelId);
  if (!outcome.ok) throw new Error(`expected a completion, got ${JSON.stringify(outcome.failure)}`);
  return outcome.value;
};

describe('toChatCompletion', () => {
  it('joins the text parts, the thoughts as reasoning, and names the catalog model', () => {
    const completion = completed({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Let me think about', thought: true },
              { text: 'Paris is ' },
              { text: 'the capital.', thoughtSignature: 'c2ln' },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: 12,
        candidatesTokenCount: 5,
        thoughtsTokenCount: 30,
        cachedContentTokenCount: 8,
        totalTokenCount: 47,
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'abc123',
    });
    expect(completion).toEqual({
      id: 'chatcmpl-abc123',
      object: 'chat.completion',
      created: expect.any(Number),
      model: modelId,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Paris is the capital.',
            refusal: null,
            reasoning: 'Let me think about',
            reasoning_details: [
              { type: 'reasoning.text', text: 'Let me think about', format: 'gemini', index: 0 },
              { type: 'reasoning.encrypted', data: 'c2ln', id: null, format: 'gemini', index: 1 },
            ],
          },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 35,
        total_tokens: 47,
        prompt_tokens_details: { cached_tokens: 8 },
        completion_tokens_details: { reasoning_tokens: 30 },
      },
    });
    expect(Math.abs(completion.created - Date.now() / 1000)).toBeLessThan(5);
  });

  it('turns function calls into tool calls: their own id or a generated one, signature kept', () => {
    const completion = completed({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              {
                functionCall: { name: 'get_weather', args: { city: 'Paris' } },
                thoughtSignature: 'CiQB+/==',
              },
              { functionCall: { id: 'fc_7', name: 'get_time' } },
            ],
          },
          finishReason: 'STOP',
        },
      ],
    });
    const message = completion.choices[0]?.message;
    expect(message?.content).toBeNull();
    expect(message?.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}__thought__CiQB\+\/==$/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
      { id: 'fc_7', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
    // The signature also as a reasoning piece naming the call it signs.
    expect(message?.reasoning).toBeUndefined();
    expect(message?.reasoning_details).toEqual([
      {
        type: 'reasoning.encrypted',
        data: 'CiQB+/==',
        id: message?.tool_calls?.[0]?.id,
        format: 'gemini',
        index: 0,
      },
    ]);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.id).toMatch(/^chatcmpl-[0-9a-f]{24}$/);
    expect(completion.usage).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('gives one choice per candidate in index order, a missing index being 0', () => {
    const completion = completed({
      candidates: [
        { content: { parts: [{ text: 'B' }] }, finishReason: 'MAX_TOKENS', index: 1 },
        { content: { parts: [{ text: 'A' }] }, finishReason: 'STOP' },
        { finishReason: 'SAFETY', index: 2 },
      ],
    });
    expect(
      completion.choices.map((choice) => [
        choice.index,
        choice.message.content,
        choice.finish_reason,
      ]),
    ).toEqual([
      [0, 'A', 'stop'],
      [1, 'B', 'length'],
      [2, null, 'content_filter'],
    ]);
  });

  it('fails a blocked prompt as OpenAI fails a flagged one: 400 invalid_prompt', () => {
    expect(
      toChatCompletion(
        { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: {} },
        modelId,
      ),
    ).toEqual({
      ok: false,
      failure: {
        kind: 'status',
        status: 400,
        error: {
          message: 'Invalid prompt: the provider blocked it (PROHIBITED_CONTENT).',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_prompt',
        },
      },
    });
  });

  it('fails an answer without candidates or a block reason as a 502', () => {
    expect(toChatCompletion({ candidates: [] }, modelId)).toEqual({
      ok: false,
      failure: {
        kind: 'status',
        status: 502,
        error: {
          message: 'The provider answered without any candidate.',
          type: 'api_error',
          param: null,
          code: null,
        },
      },
    });
  });
});

describe('finishReasonOf', () => {
  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    ['MAX_TOKENS', false, 'length'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['PROHIBITED_CONTENT', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['IMAGE_SAFETY', false, 'content_filter'],
    ['LANGUAGE', false, 'stop'],
    ['OTHER', false, 'stop'],
    ['MALFORMED_FUNCTION_CALL', false, 'stop'],
    ['SOMETHING_NEW', true, 'tool_calls'],
    [undefined, false, 'stop'],
  ] as const)('%s (calls: %s) is %s', (reason, calledTools, expected) => {
    expect(finishReasonOf(reason, calledTools)).toBe(expected);
  });
});

describe('usageOf', () => {
  it('adds the thoughts to the completion and computes a missing total', () => {
    expect(
      usageOf({ promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 6 }),
    ).toEqual({
      prompt_tokens: 10,
      completion_tokens: 10,
      total_tokens: 20,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 6 },
    });
  });
});

describe('isGenerateContentResponse', () => {
  it.each([
    [{}, true],
    [{ candidates: [{ content: { parts: [{ text: 'x' }, { inlineData: {} }] } }] }, true],
    [{ candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} } }] } }] }, true],
    [null, false],
    [[], false],
    [{ candidates: {} }, false],
    [{ candidates: ['x'] }, false],
    [{ candidates: [{ content: { parts: {} } }] }, false],
    [{ candidates: [{ content: { parts: [{ text: 3 }] } }] }, false],
    [{ candidates: [{ content: { parts: [{ functionCall: { args: {} } }] } }] }, false],
    [{ candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: [] } }] } }] }, false],
    [{ candidates: [{ content: { parts: [{ text: 'x', thoughtSignature: 1 }] } }] }, false],
    [{ candidates: [{ index: '1' }] }, false],
    [{ candidates: [{ finishReason: 1 }] }, false],
    [{ usageMetadata: { promptTokenCount: '3' } }, false],
    [{ usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 } }, true],
    [{ promptFeedback: { blockReason: 2 } }, false],
    [{ responseId: 7 }, false],
  ])('%j is %s', (value, expected) => {
    expect(isGenerateContentResponse(value)).toBe(expected);
  });
});
