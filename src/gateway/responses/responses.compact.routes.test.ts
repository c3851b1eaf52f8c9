/**
 * `POST /v1/responses/compact` with the official `openai` package, over each provider kind:
 * the compacted window (the user's messages, then one sealed `compaction` item), what the
 * provider was asked, the usage recorded, and the round trip: the compaction item sent back in a
 * later request reaches the provider as the summary it seals.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type ClientsGateway,
  costOf,
  KINDS,
  type ProviderKind,
  startClientsGateway,
} from '../../testing/gateway-clients.ts';
import { COMPACTION_PROMPT, summaryMessage } from './responses.compact.ts';

let setup: ClientsGateway;

beforeAll(async () => {
  setup = await startClientsGateway();
});
afterAll(async () => {
  await setup?.close();
});

const client = () =>
  new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: setup.gateway.apiKey, maxRetries: 0 });

const post = (path: string, body: unknown) =>
  fetch(`${setup.gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${setup.gateway.apiKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });

const conversation: OpenAI.Responses.ResponseInputItem[] = [
  { role: 'user', content: 'My name is Ada and I am planning a trip to Lyon.' },
  { role: 'assistant', content: 'Lovely! When are you going?' },
  {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: 'In May, for five days.' }],
  },
];

const SUMMARY = 'Ada plans five days in Lyon in May; she asked for a plan.';

/** The text of what a provider of `kind` was last asked, whatever its wire format. */
const lastText = (kind: ProviderKind) =>
  JSON.stringify(setup.kinds[kind].requests.at(-1)?.body ?? null);

/** Where a kind's wire format puts system and developer messages, as text. */
const systemText = (kind: ProviderKind): string => {
  const body = setup.kinds[kind].requests.at(-1)?.body ?? {};
  if (kind === 'anthropic') return JSON.stringify(body.system ?? null);
  if (kind === 'gemini') return JSON.stringify(body.systemInstruction ?? null);
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  return JSON.stringify(messages.filter((m) => m.role === 'system' || m.role === 'developer'));
};

describe.each(KINDS)('compaction with a %s provider', (kind) => {
  test('the window compacted, the provider asked for a summary, then the round trip', async () => {
    const under = setup.kinds[kind];
    under.text(SUMMARY, { prompt: 120, completion: 15 });
    const { data: compacted, response } = await client()
      .responses.compact({
        model: under.model,
        instructions: 'You are a travel agent.',
        input: conversation,
      })
      .withResponse();

    expect(response.status).toBe(200);
    expect(response.headers.get('x-mnemo-model')).toBe(under.model);
    expect(compacted).toEqual({
      id: expect.stringMatching(/^resp_[0-9a-f]{48}$/),
      object: 'response.compaction',
      created_at: expect.any(Number),
      output: [
        {
          id: expect.stringMatching(/^msg_/),
          type: 'message',
          status: 'completed',
          role: 'user',
          content: [
            { type: 'input_text', text: 'My name is Ada and I am planning a trip to Lyon.' },
          ],
        },
        {
          id: expect.stringMatching(/^msg_/),
          type: 'message',
          status: 'completed',
          role: 'user',
          content: [{ type: 'input_text', text: 'In May, for five days.' }],
        },
        {
          id: expect.stringMatching(/^cmp_[0-9a-f]{48}$/),
          type: 'compaction',
          encrypted_content: expect.any(String),
        },
      ],
      // The Response's own usage object (responses.mapping.ts).
      usage: expect.objectContaining({
        input_tokens: 120,
        output_tokens: 15,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 135,
      }),
    });
    const item = compacted.output.at(-1) as OpenAI.Responses.ResponseCompactionItem;
    // Opaque: neither the summary nor any of the conversation can be read from it.
    expect(item.encrypted_content).not.toContain('Lyon');
    expect(Buffer.from(item.encrypted_content, 'base64url').toString()).not.toContain('Lyon');

    // The provider got the conversation, the instructions, and the request for a summary last.
    const asked = lastText(kind);
    expect(asked).toContain('My name is Ada');
    expect(asked).toContain('Lovely! When are you going?');
    expect(asked).toContain(JSON.stringify(COMPACTION_PROMPT).slice(1, -1));
    expect(systemText(kind)).toContain('You are a travel agent.');

    const calls = await setup.gateway.calls((all) =>
      all.some((call) => call.model === under.model && call.promptTokens === 120),
    );
    expect(calls.filter((call) => call.promptTokens === 120 && call.model === under.model)).toEqual(
      [
        {
          model: under.model,
          provider: under.provider,
          promptTokens: 120,
          completionTokens: 15,
          costUsd: costOf({ prompt: 120, completion: 15 }),
          status: 200,
          kind: 'chat',
        },
      ],
    );

    // Carry on from the compacted window: the summary reaches the provider as context.
    under.text('Here is a plan for five days in Lyon.');
    const next = await client().responses.create({
      model: under.model,
      input: [
        ...(compacted.output as OpenAI.Responses.ResponseInputItem[]),
        { role: 'user', content: 'Make me a plan.' },
      ],
    });
    expect(next.output_text).toBe('Here is a plan for five days in Lyon.');
    expect(systemText(kind)).toContain(JSON.stringify(summaryMessage(SUMMARY)).slice(1, -1));
    expect(lastText(kind)).toContain('Make me a plan.');
    expect(lastText(kind)).toContain('In May, for five days.');
    expect(lastText(kind)).not.toContain(item.encrypted_content);
  });
});

describe('compacting what was compacted', () => {
  test('an earlier compaction is opened into the conversation the model summarizes', async () => {
    const under = setup.kinds.openai;
    under.text('First summary.');
    const first = await client().responses.compact({ model: under.model, input: conversation });
    under.text('Second summary.');
    const second = await client().responses.compact({
      model: under.model,
      input: [
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { role: 'user', content: 'Also, I like museums.' },
      ],
    });
    expect(lastText('openai')).toContain(
      JSON.stringify(summaryMessage('First summary.')).slice(1, -1),
    );
    expect(second.output.map((item) => item.type)).toEqual([
      'message',
      'message',
      'message',
      'compaction',
    ]);
  });

  test('the router `auto` compacts with the model it picks', async () => {
    // The router's first working model is Anthropic's (gateway-clients.ts, ROUTER_ORDER).
    setup.kinds.anthropic.text('Summary by the router.');
    const { data, response } = await client()
      .responses.compact({ model: 'auto', input: 'Remember: the code is 1234.' })
      .withResponse();
    expect(response.headers.get('x-mnemo-model')).toBe(setup.kinds.anthropic.model);
    expect(data.output.map((item) => item.type)).toEqual(['message', 'compaction']);
  });
});

describe('refusals, in OpenAI’s shape', () => {
  test('without a model', async () => {
    const response = await post('/responses/compact', { input: 'Hello' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: "Missing required parameter: 'model'.",
        type: 'invalid_request_error',
        param: 'model',
        code: 'missing_required_parameter',
      },
    });
  });

  test('without an input', async () => {
    const response = await post('/responses/compact', { model: setup.kinds.openai.model });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: "Missing required parameter: 'input'.",
        type: 'invalid_request_error',
        param: 'input',
        code: 'missing_required_parameter',
      },
    });
  });

  test('a previous_response_id: this server keeps no responses', async () => {
    const before = setup.kinds.openai.requests.length;
    const error = await client()
      .responses.compact({ model: setup.kinds.openai.model, previous_response_id: 'resp_123' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
      message: "Previous response with id 'resp_123' not found.",
      type: 'invalid_request_error',
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
    expect(setup.kinds.openai.requests.length).toBe(before);
  });

  test.each([
    ['/responses', { model: 'openai/gpt-4.1' }],
    ['/responses/compact', { model: 'openai/gpt-4.1' }],
  ])('a compaction item that does not open, sent to %s', async (path, body) => {
    const before = setup.kinds.openai.requests.length;
    setup.kinds.openai.text('First summary.');
    const compacted = await client().responses.compact({ model: 'openai/gpt-4.1', input: 'Hi' });
    const item = compacted.output.at(-1) as OpenAI.Responses.ResponseCompactionItem;
    // One character changed: the seal no longer holds.
    const last = item.encrypted_content.at(-2) === 'A' ? 'B' : 'A';
    const forged = `${item.encrypted_content.slice(0, -2)}${last}${item.encrypted_content.at(-1)}`;
    for (const [encrypted, index] of [
      [forged, 1],
      ['not a sealed value', 1],
    ] as const) {
      const response = await post(path, {
        ...body,
        input: [
          { role: 'user', content: 'Hi' },
          { type: 'compaction', id: item.id, encrypted_content: encrypted },
        ],
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          message: `The encrypted content for item ${item.id} could not be verified.`,
          type: 'invalid_request_error',
          param: `input[${index}].encrypted_content`,
          code: 'invalid_encrypted_content',
        },
      });
    }
    const missing = await post(path, { ...body, input: [{ type: 'compaction' }] });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: {
        message: "Missing required parameter: 'input[0].encrypted_content'.",
        type: 'invalid_request_error',
        param: 'input[0].encrypted_content',
        code: 'missing_required_parameter',
      },
    });
    // Only the compaction that made the item reached the provider.
    expect(setup.kinds.openai.requests.length).toBe(before + 1);
  });
});
