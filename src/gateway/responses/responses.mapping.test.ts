import { randomBytes } from 'node:crypto';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import type { ReasoningDetail } from '../chat.schemas.ts';
import { GatewayError } from '../openai-errors.ts';
import type { ChatCompletion, ChatCompletionMessage, FinishReason } from '../provider.ts';
import { createSealer } from '../sealing.ts';
import { newResponseIds, type ResponseIds, toResponse } from './responses.mapping.ts';
import { toChatRequest } from './responses.request.ts';
import { ResponsesRequest } from './responses.schemas.ts';

const sealer = createSealer(randomBytes(32));
const chat = (body: ResponsesRequest) => toChatRequest(body, sealer);
const whole = (completion: ChatCompletion, body: ResponsesRequest, ids: ResponseIds) =>
  toResponse(completion, body, ids, sealer);

const model = 'openai/gpt-4.1';

/** Ids numbered in order of use, so that objects can be compared whole. */
function countingIds(): ResponseIds {
  const used = { msg: 0, fc: 0, rs: 0 };
  return {
    response: 'resp_1',
    createdAt: 1_750_000_000,
    item: (kind) => `${kind}_${++used[kind]}`,
    now: () => 1_750_000_002,
  };
}

async function rejection(body: ResponsesRequest) {
  const result = await chat(body);
  expect(result).toBeInstanceOf(GatewayError);
  const error = result as GatewayError;
  return { status: error.status, ...error.body.error };
}

describe('the request schema', () => {
  const check = Compile(ResponsesRequest);

  it('accepts what the official SDK sends, nulls included', async () => {
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

  it('rejects a malformed function tool rather than taking it for another kind of tool', async () => {
    expect(check.Check({ model, input: 'Hi', tools: [{ type: 'function' }] })).toBe(false);
  });

  it('rejects a malformed known item and a body without input', async () => {
    expect(check.Check({ model, input: [{ type: 'function_call', call_id: 'c' }] })).toBe(false);
    expect(check.Check({ model })).toBe(false);
  });
});

describe('toChatRequest', () => {
  it('sends instructions as a leading system message and a string input as a user message', async () => {
    expect(await chat({ model, input: 'Hello', instructions: 'Be brief.' })).toEqual({
      model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
    });
  });

  it('maps the sampling and length parameters, and leaves out those set to null', async () => {
    expect(
      await chat({
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

  it('maps messages of every role, in the short and the long form, with their parts', async () => {
    expect(
      await chat({
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

  it('maps input images given by URL, data URLs included', async () => {
    expect(
      await chat({
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

  it('joins consecutive function calls to the assistant turn before them, outputs as tool messages', async () => {
    expect(
      await chat({
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

  it('gives a reasoning item to the assistant turn it belongs to: text, and the pieces it seals', async () => {
    const details: ReasoningDetail[] = [
      {
        type: 'reasoning.text',
        text: 'Check the weather.',
        signature: 'sig-1',
        format: 'anthropic',
      },
      { type: 'reasoning.encrypted', data: 'opaque', id: 'call_1', format: 'gemini' },
    ];
    const sealed = await sealer.seal('reasoning', details);
    const call = { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{}' };
    const output = { type: 'function_call_output', call_id: 'call_1', output: 'sunny' };
    const thought = (text: string, token?: string) => ({
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'summarised' }],
      content: [{ type: 'reasoning_text', text }],
      ...(token && { encrypted_content: token }),
      status: 'completed',
    });
    const toolCalls = [
      { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } },
    ];
    // Before the turn (as OpenAI orders them), after its calls (pieces given last), and a
    // reasoning item of text alone, which the next turn's message takes.
    expect(
      await chat({
        model,
        input: [
          { role: 'user', content: 'Weather?' },
          thought('Check the weather.', sealed),
          call,
          thought(' And the time.'),
          output,
          thought('It is sunny.'),
          { role: 'assistant', content: 'Sunny.' },
        ],
      } as ResponsesRequest),
    ).toEqual({
      model,
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: toolCalls,
          reasoning: 'Check the weather.\n\n And the time.',
          reasoning_details: details,
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'assistant', content: 'Sunny.', reasoning: 'It is sunny.' },
      ],
    });
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [] };
    expect(await chat({ model, input: [reasoning, { role: 'user', content: 'Hi' }] })).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(await rejection({ model, input: [reasoning], instructions: 'Be brief.' })).toEqual({
      status: 400,
      message:
        "Invalid value for 'input': it holds no message, function call or function call output.",
      type: 'invalid_request_error',
      param: 'input',
      code: 'invalid_value',
    });
  });

  it('refuses encrypted_content it did not seal for reasoning, as OpenAI refuses one it cannot verify', async () => {
    const sealed = await sealer.seal('reasoning', []);
    const compaction = await sealer.seal('compaction', []);
    const elsewhere = await createSealer(randomBytes(32)).seal('reasoning', []);
    for (const token of [`${sealed.slice(0, -4)}AAAA`, compaction, elsewhere, 'gAAAAABnot-ours']) {
      expect(
        await rejection({
          model,
          input: [
            { role: 'user', content: 'Hi' },
            { type: 'reasoning', id: 'rs_9', summary: [], encrypted_content: token },
          ],
        }),
      ).toEqual({
        status: 400,
        message:
          'The encrypted content for item rs_9 could not be verified. Reason: Encrypted content could not be decrypted or parsed.',
        type: 'invalid_request_error',
        param: 'input[1].encrypted_content',
        code: 'invalid_encrypted_content',
      });
    }
  });

  it('sends reasoning.effort as reasoning_effort, and the chat parameters of the same names', async () => {
    expect(
      await chat({
        model,
        input: 'Hi',
        reasoning: { effort: 'high', summary: 'auto' },
        presence_penalty: 0.4,
        frequency_penalty: 0.2,
        safety_identifier: 'hashed-user',
        prompt_cache_key: 'thread-9',
        prompt_cache_retention: 'in_memory',
        // Echoed in the response, never sent on.
        top_logprobs: 2,
        service_tier: 'priority',
        max_tool_calls: 3,
        truncation: 'auto',
        include: ['reasoning.encrypted_content'],
      }),
    ).toEqual({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
      reasoning_effort: 'high',
      presence_penalty: 0.4,
      frequency_penalty: 0.2,
      safety_identifier: 'hashed-user',
      prompt_cache_key: 'thread-9',
      prompt_cache_retention: 'in_memory',
    });
  });

  it('maps function tools, tool_choice and text.format', async () => {
    expect(
      await chat({
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

  it('keeps the other tool_choice values and text formats as they are', async () => {
    for (const choice of ['none', 'auto', 'required'] as const) {
      expect(await chat({ model, input: 'Hi', tool_choice: choice })).toMatchObject({
        tool_choice: choice,
      });
    }
    for (const type of ['text', 'json_object'] as const) {
      expect(await chat({ model, input: 'Hi', text: { format: { type } } })).toMatchObject({
        response_format: { type },
      });
    }
  });

  describe('refuses with a 400 that says what is not supported', () => {
    it('previous_response_id, conversation, background and prompt: nothing is stored', async () => {
      expect(await rejection({ model, input: 'Hi', previous_response_id: 'resp_abc' })).toEqual({
        status: 400,
        message:
          'previous_response_id is not supported: this server keeps no responses. Send the whole conversation in `input`, including the output items of earlier responses.',
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: 'unsupported_parameter',
      });
      expect(await rejection({ model, input: 'Hi', conversation: 'conv_1' })).toMatchObject({
        param: 'conversation',
        code: 'unsupported_parameter',
      });
      expect(await rejection({ model, input: 'Hi', background: true })).toMatchObject({
        param: 'background',
        code: 'unsupported_parameter',
      });
      expect(await rejection({ model, input: 'Hi', prompt: { id: 'pmpt_1' } })).toMatchObject({
        param: 'prompt',
        code: 'unsupported_parameter',
      });
    });

    it('tools other than functions', async () => {
      expect(
        await rejection({
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

    it('tool_choice other than none, auto, required or a function', async () => {
      expect(await rejection({ model, input: 'Hi', tool_choice: { type: 'file_search' } })).toEqual(
        {
          status: 400,
          message:
            "tool_choice of type 'file_search' is not supported by this server; use 'none', 'auto', 'required' or {\"type\": \"function\", \"name\": …}.",
          type: 'invalid_request_error',
          param: 'tool_choice.type',
          code: 'unsupported_value',
        },
      );
    });

    it('an image given by file id, or by nothing', async () => {
      const image = (part: object) => ({
        model,
        input: [{ role: 'user' as const, content: [{ type: 'input_image' as const, ...part }] }],
      });
      expect(await rejection(image({ file_id: 'file-123' }))).toEqual({
        status: 400,
        message:
          'input_image.file_id is not supported: this server keeps no files. Send the image as image_url, an https URL or a data: URL.',
        type: 'invalid_request_error',
        param: 'input[0].content[0].file_id',
        code: 'unsupported_value',
      });
      expect(await rejection(image({ detail: 'high' }))).toEqual({
        status: 400,
        message: "Missing required parameter: 'input[0].content[0].image_url'.",
        type: 'invalid_request_error',
        param: 'input[0].content[0].image_url',
        code: 'missing_required_parameter',
      });
    });

    it('content of a type this server does not take, or in a role that cannot carry it', async () => {
      const inputFile = { type: 'input_file', file_id: 'file-1' };
      expect(
        await rejection({
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
        await rejection({
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
        await rejection({
          model,
          input: [{ role: 'user', content: [{ type: 'refusal', refusal: 'No' }] }],
        }),
      ).toMatchObject({
        message: "Content of type 'refusal' is not supported in user messages.",
        param: 'input[0].content[0].type',
      });
      expect(
        await rejection({
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

    it('input items of other types', async () => {
      const reference = { type: 'item_reference', id: 'msg_1' };
      expect(await rejection({ model, input: [reference] })).toEqual({
        status: 400,
        message:
          "Input items of type 'item_reference' are not supported by this server; send messages, function_call, function_call_output and reasoning items.",
        type: 'invalid_request_error',
        param: 'input[0].type',
        code: 'unsupported_value',
      });
    });

    it('a function call output that answers no call before it', async () => {
      expect(
        await rejection({
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
  billing: { payer: 'developer' },
  error: null,
  frequency_penalty: 0,
  instructions: null,
  max_output_tokens: null,
  max_tool_calls: null,
  model: 'openai/gpt-4.1-2025-04-14',
  parallel_tool_calls: true,
  presence_penalty: 0,
  previous_response_id: null,
  prompt_cache_key: null,
  prompt_cache_retention: null,
  reasoning: { effort: null, summary: null },
  safety_identifier: null,
  service_tier: 'default',
  store: false,
  temperature: 1,
  text: { format: { type: 'text' }, verbosity: 'medium' },
  tool_choice: 'auto',
  tools: [],
  top_logprobs: 0,
  top_p: 1,
  truncation: 'disabled',
  usage: {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 },
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

  it('makes a text answer one message item', async () => {
    expect(await whole(completion({ content: 'Hello!' }), body, countingIds())).toEqual({
      ...defaults,
      status: 'completed',
      completed_at: 1_750_000_002,
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

  it('makes each tool call a function_call item, after the message that came with them', async () => {
    const calls = [
      {
        id: 'call_w',
        type: 'function' as const,
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
      { id: 'call_t', type: 'function' as const, function: { name: 'get_time', arguments: '{}' } },
    ];
    const response = await whole(
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
    const callsOnly = await whole(
      completion({ content: null, tool_calls: calls }, 'tool_calls'),
      body,
      countingIds(),
    );
    expect(callsOnly.output.map((item) => item.id)).toEqual(['fc_1', 'fc_2']);
  });

  it('marks an answer cut by the length limit or by a content filter incomplete', async () => {
    const cut = await whole(completion({ content: 'Once upon' }, 'length'), body, countingIds());
    expect(cut.status).toBe('incomplete');
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(cut.output[0]?.status).toBe('incomplete');
    const filtered = await whole(
      completion({ content: '' }, 'content_filter'),
      body,
      countingIds(),
    );
    expect(filtered).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
      output: [{ type: 'message', status: 'incomplete', content: [text('')] }],
    });
  });

  it('gives a refusal as a refusal part', async () => {
    const refused = await whole(
      completion({ refusal: 'I cannot help with that.' }),
      body,
      countingIds(),
    );
    expect(refused.output).toEqual([
      {
        id: 'msg_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'refusal', refusal: 'I cannot help with that.' }],
      },
    ]);
  });

  it('echoes the request, saying that nothing was stored', async () => {
    const response = await whole(
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
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
        top_logprobs: 3,
        reasoning: { effort: 'low', summary: null, generate_summary: 'concise' },
        safety_identifier: 'hashed-user',
        prompt_cache_key: 'thread-9',
        prompt_cache_retention: '24h',
        service_tier: 'flex',
        max_tool_calls: 4,
        truncation: 'auto',
        include: ['reasoning.encrypted_content'],
      },
      countingIds(),
    );
    expect(response).toEqual({
      ...defaults,
      status: 'completed',
      completed_at: 1_750_000_002,
      incomplete_details: null,
      output: [expect.objectContaining({ type: 'message' })],
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
          // OpenAI's default for this API's functions.
          strict: true,
        },
      ],
      tool_choice: 'required',
      text: { format: { type: 'json_object' }, verbosity: 'low' },
      metadata: { trace: 'abc' },
      user: 'user-42',
      store: false,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      top_logprobs: 3,
      reasoning: { effort: 'low', summary: 'concise' },
      safety_identifier: 'hashed-user',
      prompt_cache_key: 'thread-9',
      prompt_cache_retention: '24h',
      // What served the call: the operator's tier, never the caller's.
      service_tier: 'default',
      max_tool_calls: 4,
      // This server never truncates.
      truncation: 'disabled',
    });
  });

  describe('reasoning', () => {
    const details: ReasoningDetail[] = [
      { type: 'reasoning.text', text: 'Think.', signature: 'sig', format: 'anthropic' },
    ];

    it('comes first, as a reasoning item: the text as content, the pieces sealed', async () => {
      const response = await whole(
        completion({ content: 'Done.', reasoning: 'Think.', reasoning_details: details }),
        { model, input: 'Hi', reasoning: { effort: 'low' } },
        countingIds(),
      );
      const token = (response.output[0] as { encrypted_content: string }).encrypted_content;
      expect(response.output).toEqual([
        {
          id: 'rs_1',
          type: 'reasoning',
          status: 'completed',
          summary: [],
          content: [{ type: 'reasoning_text', text: 'Think.' }],
          encrypted_content: expect.any(String),
        },
        expect.objectContaining({ id: 'msg_1', type: 'message' }),
      ]);
      expect(await sealer.open('reasoning', token)).toEqual(details);
      expect(response.reasoning).toEqual({ effort: 'low', summary: null });
      expect(response.usage?.output_tokens_details).toEqual({ reasoning_tokens: 1 });
    });

    it('gives the text as the summary too when one was asked for', async () => {
      const response = await whole(
        completion({ content: 'Done.', reasoning: 'Think.' }),
        { model, input: 'Hi', reasoning: { summary: 'detailed' } },
        countingIds(),
      );
      expect(response.output[0]).toEqual({
        id: 'rs_1',
        type: 'reasoning',
        status: 'completed',
        summary: [{ type: 'summary_text', text: 'Think.' }],
        content: [{ type: 'reasoning_text', text: 'Think.' }],
        // No pieces: nothing to seal.
        encrypted_content: null,
      });
    });

    it('keeps pieces without text (signatures alone) in an item with no text', async () => {
      const signature: ReasoningDetail[] = [
        { type: 'reasoning.encrypted', data: 'sig', id: 'call_1', format: 'gemini' },
      ];
      const response = await whole(
        completion({ content: 'Done.', reasoning_details: signature }),
        { model, input: 'Hi', reasoning: { summary: 'auto' } },
        countingIds(),
      );
      const item = response.output[0];
      if (item?.type !== 'reasoning') throw new Error('a reasoning item comes first');
      expect([item.summary, item.content]).toEqual([[], []]);
      expect(await sealer.open('reasoning', item.encrypted_content ?? '')).toEqual(signature);
    });

    it('still gives an (empty) message when the model only reasoned', async () => {
      const response = await whole(
        completion({ content: null, reasoning: 'Hmm.' }, 'length'),
        body,
        countingIds(),
      );
      expect(response.output.map((item) => [item.type, item.status])).toEqual([
        ['reasoning', 'completed'],
        ['message', 'incomplete'],
      ]);
    });
  });

  it('gives no completed_at to a response that did not complete', async () => {
    const cut = await whole(completion({ content: 'Once' }, 'length'), body, countingIds());
    expect(cut.completed_at).toBeNull();
  });
});

describe('newResponseIds', () => {
  it('makes ids in OpenAI shapes, a new one for each item', async () => {
    const ids = newResponseIds(new Date('2025-06-15T12:00:00Z'));
    expect(ids.response).toMatch(/^resp_[0-9a-f]{48}$/);
    expect(ids.createdAt).toBe(1_749_988_800);
    expect(ids.item('msg')).toMatch(/^msg_[0-9a-f]{48}$/);
    expect(ids.item('fc')).not.toBe(ids.item('fc'));
    expect(ids.item('rs')).toMatch(/^rs_[0-9a-f]{48}$/);
    expect(Math.abs(ids.now() - Date.now() / 1000)).toBeLessThan(2);
  });
});
