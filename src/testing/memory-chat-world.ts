import OpenAI from 'openai';
import type { ProviderKind } from './gateway-clients.ts';
import { type GatewayFile, type GatewayServer, startGatewayServer } from './gateway-server.ts';
import { startAnthropicSimulator } from './simulators/anthropic-simulator.ts';
import { startGeminiSimulator } from './simulators/gemini-simulator.ts';
import { startOpenAiSimulator } from './simulators/openai-simulator.ts';

/**
 * Per provider kind, two models: one that answers with the request it was sent (its upstream
 * name holds `echo`: the simulators echo it), to see what the gateway injected; and an
 * extraction model, which answers structured proposals by the simulators' documented rule
 * (simulated-extraction.ts).
 */
export const ECHO: Readonly<Record<ProviderKind, string>> = {
  openai: 'openai/gpt-echo',
  anthropic: 'anthropic/claude-echo',
  gemini: 'google/gemini-echo',
};
export const EXTRACTOR: Readonly<Record<ProviderKind, string>> = {
  openai: 'openai/gpt-extractor',
  anthropic: 'anthropic/claude-extractor',
  gemini: 'google/gemini-extractor',
};

export interface ScriptedAnswers {
  /** The next answer of `kind`'s simulator is this text (whichever model is asked). */
  text(kind: ProviderKind, text: string): void;
  /** The next answer is this JSON document, as the kind answers when asked for JSON. */
  json(kind: ProviderKind, value: object): void;
  /** The next answer is this error status. */
  error(kind: ProviderKind, status: number): void;
}

export interface MemoryChatWorld extends ScriptedAnswers {
  readonly gateway: GatewayServer;
  /** An OpenAI client of the gateway with the organization owner's key, sending `headers`. */
  client(headers?: Record<string, string>): OpenAI;
  /** A memory saved through the memory API as the key's owner; its id. */
  remember(content: string, category?: string, project?: string): Promise<string>;
  /** `GET /api/v1/memory` (a project's pool with `project`): the whole answer. */
  memories(query?: string): Promise<{
    memories: { id: string; content: string; category?: string }[];
    deleted?: string[];
    cursor: string;
  }>;
  /** `PATCH /api/v1/api-keys/{id}` of the world's key. */
  setKey(settings: { memory?: string; memoryAccess?: string }): Promise<void>;
  /** Resolves once every extraction started has stored what it learned. */
  learned(): Promise<void>;
  /** The requests each simulator received, oldest first (parsed bodies). */
  upstream(kind: ProviderKind): Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * The whole service with one provider of each kind, their echo and extraction models, a router
 * `auto` over the echo models, and `env` (MNEMO_MEMORY_EXTRACTION_MODEL by default the given
 * kind's extraction model).
 */
export async function startMemoryChatWorld(
  extractionKind: ProviderKind,
  env: Record<string, string> = {},
): Promise<MemoryChatWorld> {
  const openai = await startOpenAiSimulator({ apiKey: 'sk-openai-sim', chunkDelayMs: 0 });
  const anthropic = await startAnthropicSimulator({ apiKey: 'sk-ant-sim', chunkDelayMs: 0 });
  const gemini = await startGeminiSimulator({ apiKey: 'gemini-sim-key', chunkDelayMs: 0 });
  const model = (id: string, provider: string) => ({
    id,
    provider,
    upstream: id.slice(id.indexOf('/') + 1),
    tools: true,
    jsonOutput: true,
    contextWindow: 200_000,
    price: { input: 2, output: 8 },
  });
  const file: GatewayFile = {
    providers: {
      openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKeyEnv: 'TEST_OPENAI_KEY' },
      anthropic: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKeyEnv: 'TEST_ANTHROPIC_KEY' },
      google: { kind: 'gemini', baseUrl: gemini.baseUrl, apiKeyEnv: 'TEST_GEMINI_KEY' },
    },
    models: [
      model(ECHO.openai, 'openai'),
      model(EXTRACTOR.openai, 'openai'),
      model(ECHO.anthropic, 'anthropic'),
      model(EXTRACTOR.anthropic, 'anthropic'),
      model(ECHO.gemini, 'google'),
      model(EXTRACTOR.gemini, 'google'),
    ],
    router: { id: 'auto', order: [ECHO.anthropic, ECHO.openai, ECHO.gemini] },
  };
  const gateway = await startGatewayServer(file, {
    TEST_OPENAI_KEY: 'sk-openai-sim',
    TEST_ANTHROPIC_KEY: 'sk-ant-sim',
    TEST_GEMINI_KEY: 'gemini-sim-key',
    MNEMO_MEMORY_EXTRACTION_MODEL: EXTRACTOR[extractionKind],
    ...env,
  });
  const api = async (method: string, path: string, body?: object) => {
    const response = await fetch(`${gateway.server.url}${path}`, {
      method,
      headers: {
        ...gateway.owner.headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const keyId = async () => {
    const { keys } = (await api('GET', '/api/v1/api-keys')) as { keys: { id: string }[] };
    const [key] = keys;
    if (!key) throw new Error('no key');
    return key.id;
  };

  return {
    gateway,
    client: (headers = {}) =>
      new OpenAI({
        baseURL: gateway.baseUrl,
        apiKey: gateway.apiKey,
        defaultHeaders: headers,
        maxRetries: 0,
      }),
    async remember(content, category, project) {
      const body = { content, ...(category && { category }), ...(project && { project }) };
      const { memory } = (await api('POST', '/api/v1/memory', body)) as { memory: { id: string } };
      return memory.id;
    },
    memories: (query = '') => api('GET', `/api/v1/memory${query}`) as never,
    async setKey(settings) {
      await api('PATCH', `/api/v1/api-keys/${await keyId()}`, settings);
    },
    learned: () => gateway.server.t.app.memoryLearning.idle(),
    upstream: (kind) =>
      (kind === 'openai' ? openai : kind === 'anthropic' ? anthropic : gemini).requests.map(
        (request) => request.body as unknown as Record<string, unknown>,
      ),
    text(kind, text) {
      if (kind === 'openai') openai.script({ kind: 'text', text });
      else if (kind === 'anthropic') anthropic.script({ kind: 'text', text });
      else gemini.script({ kind: 'text', text });
    },
    json(kind, value) {
      if (kind === 'openai') openai.script({ kind: 'text', text: JSON.stringify(value) });
      else if (kind === 'anthropic') {
        anthropic.script({
          kind: 'tool_calls',
          calls: [{ id: 'toolu_01Extraction', name: 'json_response', input: value as never }],
        });
      } else gemini.script({ kind: 'text', text: JSON.stringify(value) });
    },
    error(kind, status) {
      if (kind === 'openai') openai.script({ kind: 'error', status });
      else if (kind === 'anthropic') anthropic.script({ kind: 'error', status });
      else gemini.script({ kind: 'error', status });
    },
    async close() {
      await gateway.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    },
  };
}

/**
 * A `/v1/chat/completions` call of the echo model of OpenAI's kind with raw fetch, with
 * `headers`: the status, what was recalled, the echoed request and the error, as they are.
 */
export async function chatWithMemory(
  world: MemoryChatWorld,
  headers: Record<string, string>,
  content: string,
) {
  const response = await fetch(`${world.gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${world.gateway.apiKey}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify({ model: ECHO.openai, messages: [{ role: 'user', content }] }),
  });
  const body = (await response.json()) as {
    choices?: { message: { content: string } }[];
    error?: { message: string; type: string; param: string | null; code: string | null };
  };
  return {
    status: response.status,
    recalled: response.headers.get('x-mnemo-memories'),
    echoed: body.choices?.[0]?.message.content ?? '',
    error: body.error,
  };
}
