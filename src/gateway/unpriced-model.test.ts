/**
 * A model without a price (a self-hosted server): the catalog takes it, its calls are answered
 * and recorded with their tokens, and their cost is unknown — null in the usage answer, an
 * empty field in the export — never $0. Totals are the known costs, with the unpriced calls
 * counted beside them.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../testing/gateway-server.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../testing/simulators/openai-simulator.ts';

let sim: OpenAiSimulator;
let gateway: GatewayServer;

beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: 'sk-sim', chunkDelayMs: 1 });
  gateway = await startGatewayServer(
    {
      providers: {
        paid: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_SIM_KEY' },
        local: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_SIM_KEY' },
      },
      models: [
        {
          id: 'paid/gpt-4o',
          provider: 'paid',
          upstream: 'gpt-4o',
          contextWindow: 128000,
          price: { input: 2, output: 8 },
        },
        // No price: the file of a self-hosted model, which the catalog takes as it is.
        { id: 'local/llama3.1', provider: 'local', upstream: 'llama3.1:8b', contextWindow: 8192 },
      ],
    },
    { TEST_SIM_KEY: 'sk-sim' },
  );
});
afterAll(async () => {
  await gateway?.close();
  await sim?.close();
});

const client = () =>
  new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries: 0 });
const hello = [{ role: 'user' as const, content: 'Hello there' }];

describe('a model without a price', () => {
  beforeAll(async () => {
    sim.script({
      kind: 'text',
      text: 'Paid',
      usage: { prompt_tokens: 1000, completion_tokens: 500 },
    });
    await client().chat.completions.create({ model: 'paid/gpt-4o', messages: hello });
    sim.script({
      kind: 'text',
      text: 'Local',
      usage: { prompt_tokens: 300, completion_tokens: 100 },
    });
    const answer = await client().chat.completions.create({
      model: 'local/llama3.1',
      messages: hello,
    });
    expect(answer.choices[0]?.message.content).toBe('Local');
    sim.script({ kind: 'text', text: 'Again', usage: { prompt_tokens: 20, completion_tokens: 5 } });
    const stream = await client().chat.completions.create({
      model: 'local/llama3.1',
      messages: hello,
      stream: true,
    });
    for await (const _ of stream);
    await gateway.calls((calls) => calls.length === 3);
  });

  test('its calls are exported with their tokens and an empty cost, the priced one with its cost', async () => {
    const calls = await gateway.calls();
    expect(calls).toEqual([
      {
        model: 'paid/gpt-4o',
        provider: 'paid',
        promptTokens: 1000,
        completionTokens: 500,
        costUsd: '0.006000',
        status: 200,
        kind: 'chat',
      },
      {
        model: 'local/llama3.1',
        provider: 'local',
        promptTokens: 300,
        completionTokens: 100,
        costUsd: '',
        status: 200,
        kind: 'chat',
      },
      {
        model: 'local/llama3.1',
        provider: 'local',
        promptTokens: 20,
        completionTokens: 5,
        costUsd: '',
        status: 200,
        kind: 'chat',
      },
    ]);
  });

  test('usage: null cost for its group, the known costs in the total and the unpriced calls counted', async () => {
    const report = await gateway.usageReport('model');
    expect(report.groups).toEqual([
      {
        key: 'local/llama3.1',
        requests: 2,
        promptTokens: 320,
        completionTokens: 105,
        reasoningTokens: 0,
        totalTokens: 425,
        costUsd: null,
        unpricedRequests: 2,
      },
      {
        key: 'paid/gpt-4o',
        requests: 1,
        promptTokens: 1000,
        completionTokens: 500,
        reasoningTokens: 0,
        totalTokens: 1500,
        costUsd: 0.006,
        unpricedRequests: 0,
      },
    ]);
    expect(report.totals).toEqual({
      requests: 3,
      promptTokens: 1320,
      completionTokens: 605,
      reasoningTokens: 0,
      totalTokens: 1925,
      costUsd: 0.006,
      unpricedRequests: 2,
    });
  });
});
