import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../openai-errors.ts';
import type { ChatCompletion, ChatCompletionMessage, FinishReason } from '../provider.ts';
import { newResponseIds, type ResponseIds, toResponse } from './responses.mapping.ts';
import { toChatRequest } from './responses.request.ts';
import { ResponsesRequest } from './responses.schemas.ts';

const model = 'openai/gpt-4.1';

/** Ids numbered in order of use, so that objects can be compared whole. */
function countingIds(): ResponseIds {
  const used = { msg: 0, fc: 0 };
  return {
    response: 'resp_1',
    createdAt: 1_750_000_000,
    item: (kind) => `${kind}_${++used[kind]}`,
  };
}

function rejection(body: ResponsesRequest) {
  const result = toChatRequest(body);
  expect(result).toBeInstanceOf(GatewayError);
  const error = result as GatewayError;
  return { status: error.status, ...error.body.error };
}

describe('the request schema', () => {
  const check = Compile(ResponsesRequest);

  it('accepts what the official SDK sends, nulls included', () => {
    expect(
      check.Check({
        model,
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
        ],
        instructions: null,
        temperature: null,
        tools: [{ type: 'web_search' }],
        tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] },
        store: true,
      }),
    ).toBe(true);
  });

  it('rejects a malformed function tool rather than taking it for another kind of tool', () => {
    expect(check.Check({ model, input: 'Hi', tools: [{ type: 'function' }] })).toBe(false);
  });

  it('rejects a malformed known item and a body without input', () => {
    expect(check.Check({ model, input: [{ type: 'function_call', call_id: 'c' }] })).toBe(false);
    expect(check.Check({ model })).toBe(false);
  });
});

describe('toChatRequest', () => {
  it('sends instructions as a leading system message and a string input as a user message', () => {
    expect(toChatRequest({ model, input: 'Hello', instructions: 'Be brief.' })).toEqual({
      model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
    });
  });

  it('maps the sampling and length parameters, and leaves out those set to null', () => {
    expect(
      toChatRequest({
        model,
        input: 'Hello',
        stream: true,
        max_output_tokens: 256,
        temperature: 0.2,
        top_p: null,
        parallel_tool_calls: false,
        user: 'user-42',
        metadata: { trace: 'abc' },
        store: true,
        background: false,
      }),
    ).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      max_completion_tokens: 256,
      temperature: 0.2,
      parallel_tool_calls: false,
      user: 'user-42',
    });
  });

  it('maps messages of every role, in the short and the long form, with their parts', () => {
    expect(
      toChatRequest({
        model,
        input: [
          { role: 'developer', content: 'Answer in French.' },
          { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Be kind.' }] },
          { role: 'user', content: [{ type: 'input_text', text: 'Hello' }] },
          {
            type: 'message',
            role: 'assistant',
            content: [
              { type: 'output_text', text: 'Bonjour' },
              { type: 'refusal', refusal: 'Not that.' },
            ],
          },
          { role: 'assistant', content: 'Et puis ?' },
        ],
      }),
    ).toEqual({
      model,
      messages: [
        { role: 'developer', content: 'Answer in French.' },
        { role: 'system', content: [{ type: 'text', text: 'Be kind.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Bonjour' },
            { type: 'refusal', refusal: 'Not that.' },
          ],
        },
        { role: 'assistant', content: 'Et puis ?' },
      ],
    });
  });

  it('maps input images given by URL, data URLs included', () => {
    expect(
      toChatRequest({
        model,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Compare' },
              { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
              { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
            ],
          },
        ],
      }),
    ).toEqual({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
  });

  it('joins consecutive function calls to the assistant turn before them, outputs as tool messages', () => {
    expect(
      toChatRequest({
        model,
        input: [
          { role: 'user', content: 'Weather and time in Paris?' },
          { role: 'assistant', content: 'Let me look.' },
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'call_w',
            name: 'get_weather',
            arguments: '{"city":"Paris"}',
          },
          { type: 'function_call', call_id: 'call_t', name: 'get_time', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_w', output: '18°C' },
          {
            type: 'function_call_output',
            call_id: 'call_t',
            output: [{ type: 'input_text', text: '14:05' }],
          },
          { type: 'function_call', call_id: 'call_x', name: 'get_date', arguments: '{}' },
        ],
      }),
    ).toEqual({
      model,
      messages: [
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [
            {
              id: 'call_w',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            { id: 'call_t', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_w', content: '18°C' },
        { role: 'tool', tool_call_id: 'call_t', content: [{ type: 'text', text: '14:05' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_x', type: 'function', function: { name: 'get_date', arguments: '{}' } },
          ],
        },
      ],
    });
  });

  it('leaves out reasoning items', () => {
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [] };
    expect(toChatRequest({ model, input: [reasoning, { role: 'user', content: 'Hi' }] })).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(rejection({ model, input: [reasoning], instructions: 'Be brief.' })).toEqual({
      status: 400,
      message:
        "Invalid value for 'input': it holds no message, function call or function call output.",
      type: 'invalid_request_error',
      param: 'input',
      code: 'invalid_value',
    });
  });

  it('maps function tools, tool_choice and text.format', () => {
    expect(
      toChatRequest({
        model,
        input: 'Hi',
        tools: [
          {
            type: 'function',
            name: 'get_weather',
            description: 'The weather in a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            strict: true,
          },
          { type: 'function', name: 'get_time', description: null, parameters: null, strict: null },
        ],
        tool_choice: { type: 'function', name: 'get_weather' },
        text: {
          format: {
            type: 'json_schema',
            name: 'weather',
            schema: { type: 'object' },
            strict: true,
            description: null,
          },
        },
      }),
    ).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'The weather in a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            strict: true,
          },
        },
        { type: 'function', function: { name: 'get_time' } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'weather', schema: { type: 'object' }, strict: true },
      },
    });
  });

  it('keeps the other tool_choice values and text formats as they are', () => {
    for (const choice of ['none', 'auto', 'required'] as const) {
      expect(toChatRequest({ model, input: 'Hi', tool_choice: choice })).toMatchObject({
        tool_choice: choice,
      });
    }
    for (const type of ['text', 'json_object'] as const) {
      expect(toChatRequest({ model, input: 'Hi', text: { format: { type } } })).toMatchObject({
        response_format: { type },
      });
    }
  });

  describe('refuses with a 400 that says what is not supported', () => {
    it('previous_response_id, conversation, background and prompt: nothing is stored', () => {
      expect(rejection({ model, input: 'Hi', previous_response_id: 'resp_abc' })).toEqual({
        status: 400,
        message:
          'previous_response_id is not supported: this server keeps no responses. Send the whole conversation in `input`, including the output items of earlier responses.',
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: 'unsupported_parameter',
      });
      expect(rejection({ model, input: 'Hi', conversation: 'conv_1' })).toMatchObject({
        param: 'conversation',
        code: 'unsupported_parameter',
      });
      expect(rejection({ model, input: 'Hi', background: true })).toMatchObject({
        param: 'background',
        code: 'unsupported_parameter',
      });
      expect(rejection({ model, input: 'Hi', prompt: { id: 'pmpt_1' } })).toMatchObject({
        param: 'prompt',
        code: 'unsupported_parameter',
      });
    });

    it('tools other than functions', () => {
      expect(
        rejection({
          model,
          input: 'Hi',
          tools: [{ type: 'function', name: 'f' }, { type: 'web_search' }],
        }),
      ).toEqual({
        status: 400,
        message:
          "Tools of type 'web_search' are not supported by this server; only function tools are.",
        type: 'invalid_request_error',
        param: 'tools[1].type',
        code: 'unsupported_value',
      });
    });

    it('tool_choice other than none, auto, required or a function', () => {
      expect(rejection({ model, input: 'Hi', tool_choice: { type: 'file_search' } })).toEqual({
        status: 400,
        message:
          "tool_choice of type 'file_search' is not supported by this server; use 'none', 'auto', 'required' or {\"type\": \"function\", \"name\": …}.",
        type: 'invalid_request_error',
        param: 'tool_choice.type',
        code: 'unsupported_value',
      });
    });

    it('an image given by file id, or by nothing', () => {
      const image = (part: object) => ({
        model,
        input: [{ role: 'user' as const, content: [{ type: 'input_image' as const, ...part }] }],
      });
      expect(rejection(image({ file_id: 'file-123' }))).toEqual({
        status: 400,
        message:
          'input_image.file_id is not supported: this server keeps no files. Send the image as image_url, an https URL or a data: URL.',
        type: 'invalid_request_error',
        param: 'input[0].content[0].file_id',
        code: 'unsupported_value',
      });
      expect(rejection(image({ detail: 'high' }))).toEqual({
        status: 400,
        message: "Missing required parameter: 'input[0].content[0].image_url'.",
        type: 'invalid_request_error',
        param: 'input[0].content[0].image_url',
        code: 'missing_required_parameter',
      });
    });

    it('content of a type this server does not take, or in a role that cannot carry it', () => {
      const inputFile = { type: 'input_file', file_id: 'file-1' };
      expect(
        rejection({
          model,
          input: [{ role: 'user', content: [inputFile] }],
        }),
      ).toEqual({
        status: 400,
        message:
          "Content of type 'input_file' is not supported by this server; send input_text or input_image.",
        type: 'invalid_request_error',
        param: 'input[0].content[0].type',
        code: 'unsupported_value',
      });
      expect(
        rejection({
          model,
          input: [
            { role: 'user', content: 'Look' },
            {
              role: 'system',
              content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }],
            },
          ],
        }),
      ).toEqual({
        status: 400,
        message: "Content of type 'input_image' is not supported in system messages.",
        type: 'invalid_request_error',
        param: 'input[1].content[0].type',
        code: 'invalid_value',
      });
      expect(
        rejection({
          model,
          input: [{ role: 'user', content: [{ type: 'refusal', refusal: 'No' }] }],
        }),
      ).toMatchObject({
        message: "Content of type 'refusal' is not supported in user messages.",
        param: 'input[0].content[0].type',
      });
      expect(
        rejection({
          model,
          input: [
            { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
            {
              type: 'function_call_output',
              call_id: 'c',
              output: [{ type: 'input_image', image_url: 'https://example.com/a.png' }],
            },
          ],
        }),
      ).toMatchObject({
        message: "Content of type 'input_image' is not supported in function call outputs.",
        param: 'input[1].output[0].type',
      });
    });

    it('input items of other types', () => {
      const reference = { type: 'item_reference', id: 'msg_1' };
      expect(rejection({ model, input: [reference] })).toEqual({
        status: 400,
        message:
          "Input items of type 'item_reference' are not supported by this server; send messages, function_call and function_call_output items.",
        type: 'invalid_request_error',
        param: 'input[0].type',
        code: 'unsupported_value',
      });
    });

    it('a function call output that answers no call before it', () => {
      expect(
        rejection({
          model,
          input: [
            { role: 'user', content: 'Hi' },
            { type: 'function_call_output', call_id: 'call_nowhere', output: 'ok' },
          ],
        }),
      ).toEqual({
        status: 400,
        message: 'No tool call found for function call output with call_id call_nowhere.',
        type: 'invalid_request_error',
        param: 'input[1].call_id',
        code: null,
      });
    });
  });
});

function completion(
  message: Partial<ChatCompletionMessage>,
  finish: FinishReason = 'stop',
): ChatCompletion {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_750_000_001,
    model: 'openai/gpt-4.1-2025-04-14',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null, ...message },
        logprobs: null,
        finish_reason: finish,
      },
    ],
    usage: {
      prompt_tokens: 12,
      completion_tokens: 5,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 1 },
    },
  };
}

/** The fields of a Response that echo a request of only `model` and `input`. */
const defaults = {
  id: 'resp_1',
  object: 'response',
  created_at: 1_750_000_000,
  background: false,
  error: null,
  instructions: null,
  max_output_tokens: null,
  max_tool_calls: null,
  model: 'openai/gpt-4.1-2025-04-14',
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: null, summary: null },
  store: false,
  temperature: null,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  tools: [],
  top_p: null,
  truncation: 'disabled',
  usage: {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 4 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 1 },
    total_tokens: 17,
  },
  user: null,
  metadata: {},
};

const text = (value: string) => ({
  type: 'output_text',
  text: value,
  annotations: [],
  logprobs: [],
});

describe('toResponse', () => {
  const body = { model, input: 'Hi' };

  it('makes a text answer one message item', () => {
    expect(toResponse(completion({ content: 'Hello!' }), body, countingIds())).toEqual({
      ...defaults,
      status: 'completed',
      incomplete_details: null,
      output: [
        {
          id: 'msg_1',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [text('Hello!')],
        },
      ],
    });
  });

  it('makes each tool call a function_call item, after the message that came with them', () => {
    const calls = [
      {
        id: 'call_w',
        type: 'function' as const,
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
      { id: 'call_t', type: 'function' as const, function: { name: 'get_time', arguments: '{}' } },
    ];
    const response = toResponse(
      completion({ content: 'Looking.', tool_calls: calls }, 'tool_calls'),
      body,
      countingIds(),
    );
    expect(response.status).toBe('completed');
    expect(response.output).toEqual([
      {
        id: 'msg_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [text('Looking.')],
      },
      {
        id: 'fc_1',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_w',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      },
      {
        id: 'fc_2',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_t',
        name: 'get_time',
        arguments: '{}',
      },
    ]);
    expect(
      toResponse(
        completion({ content: null, tool_calls: calls }, 'tool_calls'),
        body,
        countingIds(),
      ).output.map((item) => item.id),
    ).toEqual(['fc_1', 'fc_2']);
  });

  it('marks an answer cut by the length limit or by a content filter incomplete', () => {
    const cut = toResponse(completion({ content: 'Once upon' }, 'length'), body, countingIds());
    expect(cut.status).toBe('incomplete');
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(cut.output[0]?.status).toBe('incomplete');
    const filtered = toResponse(completion({ content: '' }, 'content_filter'), body, countingIds());
    expect(filtered).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
      output: [{ type: 'message', status: 'incomplete', content: [text('')] }],
    });
  });

  it('gives a refusal as a refusal part', () => {
    expect(
      toResponse(completion({ refusal: 'I cannot help with that.' }), body, countingIds()).output,
    ).toEqual([
      {
        id: 'msg_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'refusal', refusal: 'I cannot help with that.' }],
      },
    ]);
  });

  it('echoes the request, saying that nothing was stored', () => {
    const response = toResponse(
      completion({ content: '{}' }),
      {
        model,
        input: 'Hi',
        instructions: 'Be brief.',
        max_output_tokens: 100,
        parallel_tool_calls: false,
        temperature: 0.5,
        top_p: 0.9,
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }],
        tool_choice: 'required',
        text: { format: { type: 'json_object' }, verbosity: 'low' },
        metadata: { trace: 'abc' },
        user: 'user-42',
        store: true,
      },
      countingIds(),
    );
    expect(response).toMatchObject({
      instructions: 'Be brief.',
      max_output_tokens: 100,
      parallel_tool_calls: false,
      temperature: 0.5,
      top_p: 0.9,
      tools: [
        {
          type: 'function',
          name: 'f',
          description: null,
          parameters: { type: 'object' },
          strict: null,
        },
      ],
      tool_choice: 'required',
      text: { format: { type: 'json_object' }, verbosity: 'low' },
      metadata: { trace: 'abc' },
      user: 'user-42',
      store: false,
    });
  });
});

describe('newResponseIds', () => {
  it('makes ids in OpenAI shapes, a new one for each item', () => {
    const ids = newResponseIds(new Date('2025-06-15T12:00:00Z'));
    expect(ids.response).toMatch(/^resp_[0-9a-f]{48}$/);
    expect(ids.createdAt).toBe(1_749_988_800);
    expect(ids.item('msg')).toMatch(/^msg_[0-9a-f]{48}$/);
    expect(ids.item('fc')).not.toBe(ids.item('fc'));
  });
});
