import type { IncomingHttpHeaders } from 'node:http';
import { type GatewayFile, type GatewayServer, startGatewayServer } from './gateway-server.ts';
import { startAnthropicSimulator } from './simulators/anthropic-simulator.ts';
import { startGeminiSimulator } from './simulators/gemini-simulator.ts';
import { startOpenAiSimulator } from './simulators/openai-simulator.ts';

export type ProviderKind = 'openai' | 'anthropic' | 'gemini';

/** The order the kinds' cases run in; ROUTER_ORDER is written for it (see there). */
export const KINDS: readonly ProviderKind[] = ['openai', 'anthropic', 'gemini'];

/** A tool call as a test scripts it, for any kind: its arguments as an object. */
export interface ScriptedCall {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

export interface ScriptedUsage {
  readonly prompt: number;
  readonly completion: number;
}

/** A request one simulator received, whatever its kind. */
export interface UpstreamRequest {
  /** The path with its query: `/v1/messages`, `/v1beta/models/…:streamGenerateContent?alt=sse`. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/**
 * One provider kind behind the gateway: the catalog model served by it, and its simulator,
 * scripted in the same words whatever the kind's wire format.
 */
export interface KindUnderTest {
  readonly kind: ProviderKind;
  /** The catalog id clients name (`anthropic/claude-sonnet-4-5`). */
  readonly model: string;
  /** The name the provider knows the model by. */
  readonly upstream: string;
  /** The catalog's provider name, as `x-mnemo-provider` and the usage export show it. */
  readonly provider: string;
  /** Every request the simulator received, oldest first. */
  readonly requests: readonly UpstreamRequest[];
  text(text: string, usage?: ScriptedUsage): void;
  toolCalls(calls: readonly ScriptedCall[], usage?: ScriptedUsage): void;
  /**
   * A JSON answer as the kind gives one when asked for it: text for OpenAI and Gemini, for
   * Anthropic a call of the tool the gateway forces (anthropic.mapping.ts, `json_response`).
   */
  json(value: Record<string, unknown>): void;
  /** An error answer with the provider's own body for `status`. */
  error(status: number, headers?: Record<string, string>): void;
  /** The status of the provider's usual "try again later": OpenAI and Gemini 503, Anthropic 529. */
  readonly outageStatus: number;
  /** Answers the next request with `outageStatus`. */
  outage(): void;
  /** Streams `text`, then the provider's error event. */
  failMidStream(text: string): void;
}

/** The price of every model, in US dollars per million tokens. */
export const PRICE = { input: 2, output: 8 } as const;

/** A model on a provider nobody listens for: every call is refused at connect. */
export const UNREACHABLE_MODEL = 'down/gpt-4.1';

const MODELS: Readonly<Record<ProviderKind, { id: string; upstream: string; provider: string }>> = {
  openai: { id: 'openai/gpt-4.1', upstream: 'gpt-4.1', provider: 'openai' },
  anthropic: {
    id: 'anthropic/claude-sonnet-4-5',
    upstream: 'claude-sonnet-4-5',
    provider: 'anthropic',
  },
  gemini: { id: 'google/gemini-2.5-flash', upstream: 'gemini-2.5-flash', provider: 'google' },
};

/**
 * The router's order: the unreachable model first, then one model of each kind. For the router
 * to answer with a given kind, the kinds before it must fail (`outage()`), and a provider that
 * fails three times in a row is kept out of the router for 30 seconds. With the kinds' cases
 * run in KINDS' order, each provider scripted to fail has answered in between, so no circuit
 * opens on a working provider and every scripted failure is consumed.
 */
export const ROUTER_ORDER: readonly ProviderKind[] = ['anthropic', 'openai', 'gemini'];

/** The kinds before `kind` in the router's order: the ones that must fail for it to answer. */
export const kindsBefore = (kind: ProviderKind): ProviderKind[] =>
  ROUTER_ORDER.slice(0, ROUTER_ORDER.indexOf(kind));

/** A 1×1 transparent PNG. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** How each kind's wire format carries an image given as base64 PNG bytes. */
export const UPSTREAM_PNG: Readonly<Record<ProviderKind, object>> = {
  openai: { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
  anthropic: {
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 },
  },
  gemini: { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } },
};

export interface ClientsGateway {
  readonly gateway: GatewayServer;
  readonly kinds: Readonly<Record<ProviderKind, KindUnderTest>>;
  close(): Promise<void>;
}

/**
 * The whole service with one provider of each kind, each a simulator, a model on each with
 * vision, tools and JSON output, an unreachable provider, and the router `auto` over them in
 * ROUTER_ORDER after the unreachable model.
 *
 * @example
 * const { gateway, kinds } = await startClientsGateway();
 * kinds.anthropic.text('Hello');
 * const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey });
 */
export async function startClientsGateway(): Promise<ClientsGateway> {
  const openai = await startOpenAiSimulator({ apiKey: 'sk-openai-sim', chunkDelayMs: 1 });
  const anthropic = await startAnthropicSimulator({ apiKey: 'sk-ant-sim', chunkDelayMs: 1 });
  const gemini = await startGeminiSimulator({ apiKey: 'gemini-sim-key', chunkDelayMs: 1 });
  const model = (id: string, provider: string, upstream: string) => ({
    id,
    provider,
    upstream,
    vision: true,
    tools: true,
    jsonOutput: true,
    contextWindow: 200_000,
    price: PRICE,
  });
  const file: GatewayFile = {
    providers: {
      openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKeyEnv: 'TEST_OPENAI_KEY' },
      anthropic: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKeyEnv: 'TEST_ANTHROPIC_KEY' },
      google: { kind: 'gemini', baseUrl: gemini.baseUrl, apiKeyEnv: 'TEST_GEMINI_KEY' },
      // Nothing listens on the discard port.
      down: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'TEST_OPENAI_KEY' },
    },
    models: [
      ...KINDS.map((kind) => model(MODELS[kind].id, MODELS[kind].provider, MODELS[kind].upstream)),
      model(UNREACHABLE_MODEL, 'down', 'gpt-4.1'),
    ],
    router: {
      id: 'auto',
      order: [UNREACHABLE_MODEL, ...ROUTER_ORDER.map((kind) => MODELS[kind].id)],
    },
  };
  const gateway = await startGatewayServer(file, {
    TEST_OPENAI_KEY: 'sk-openai-sim',
    TEST_ANTHROPIC_KEY: 'sk-ant-sim',
    TEST_GEMINI_KEY: 'gemini-sim-key',
  });

  const kinds: Record<ProviderKind, KindUnderTest> = {
    openai: {
      kind: 'openai',
      ...catalogEntry('openai'),
      get requests() {
        return openai.requests.map((r) => ({ url: r.path, headers: r.headers, body: r.body }));
      },
      text: (text, usage) =>
        openai.script({
          kind: 'text',
          text,
          ...(usage && {
            usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion },
          }),
        }),
      toolCalls: (calls) =>
        openai.script({
          kind: 'tool_calls',
          calls: calls.map(({ id, name, args }) => ({ id, name, arguments: JSON.stringify(args) })),
        }),
      json: (value) => openai.script({ kind: 'text', text: JSON.stringify(value) }),
      error: (status, headers) =>
        openai.script({ kind: 'error', status, ...(headers && { headers }) }),
      outageStatus: 503,
      outage: () => openai.script({ kind: 'error', status: 503 }),
      failMidStream: (text) => openai.script({ kind: 'error-mid-stream', text }),
    },
    anthropic: {
      kind: 'anthropic',
      ...catalogEntry('anthropic'),
      get requests() {
        return anthropic.requests.map((r) => ({ url: r.path, headers: r.headers, body: r.body }));
      },
      text: (text, usage) =>
        anthropic.script({
          kind: 'text',
          text,
          ...(usage && {
            usage: { input_tokens: usage.prompt, output_tokens: usage.completion },
          }),
        }),
      toolCalls: (calls, usage) =>
        anthropic.script({
          kind: 'tool_calls',
          calls: calls.map(({ id, name, args }) => ({ id, name, input: args })),
          ...(usage && {
            usage: { input_tokens: usage.prompt, output_tokens: usage.completion },
          }),
        }),
      json: (value) =>
        anthropic.script({
          kind: 'tool_calls',
          calls: [{ id: 'toolu_01JsonAnswer', name: 'json_response', input: value }],
        }),
      error: (status, headers) =>
        anthropic.script({ kind: 'error', status, ...(headers && { headers }) }),
      outageStatus: 529,
      outage: () => anthropic.script({ kind: 'error', status: 529 }),
      failMidStream: (text) => anthropic.script({ kind: 'error-mid-stream', text }),
    },
    gemini: {
      kind: 'gemini',
      ...catalogEntry('gemini'),
      get requests() {
        return gemini.requests.map((r) => ({
          url: r.path + r.search,
          headers: r.headers,
          body: r.body,
        }));
      },
      text: (text, usage) =>
        gemini.script({
          kind: 'text',
          text,
          ...(usage && {
            usage: { promptTokenCount: usage.prompt, candidatesTokenCount: usage.completion },
          }),
        }),
      toolCalls: (calls) =>
        gemini.script({
          kind: 'tool_calls',
          calls: calls.map(({ id, name, args }) => ({ id, name, args })),
        }),
      json: (value) => gemini.script({ kind: 'text', text: JSON.stringify(value) }),
      error: (status, headers) =>
        gemini.script({ kind: 'error', status, ...(headers && { headers }) }),
      outageStatus: 503,
      outage: () => gemini.script({ kind: 'error', status: 503 }),
      failMidStream: (text) => gemini.script({ kind: 'error-mid-stream', text }),
    },
  };

  return {
    gateway,
    kinds,
    async close() {
      await gateway.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    },
  };
}

/**
 * The `x-mnemo-route` of an answer the router got from `answering` after `failing` had their
 * outage: the unreachable model passed over (refused at connect, or once it failed three times,
 * kept out by its circuit), then each of `failing` for its status.
 */
export function routeExplanation(
  answering: KindUnderTest,
  failing: readonly KindUnderTest[],
): RegExp {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const outages = failing.map(
    (other) => `; ${literal(other.model)}: provider answered ${other.outageStatus}`,
  );
  return new RegExp(
    `^${literal(answering.model)}: first in the router's order that can serve it and answered \\(needs ~\\d+ tokens\\); passed over ${literal(UNREACHABLE_MODEL)}: (provider unreachable|provider down is failing, circuit open)${outages.join('')}$`,
  );
}

function catalogEntry(kind: ProviderKind) {
  const { id, upstream, provider } = MODELS[kind];
  return { model: id, upstream, provider };
}

/** The cost the usage export shows for a call of a model priced at PRICE. */
export function costOf(usage: ScriptedUsage): string {
  return ((usage.prompt * PRICE.input + usage.completion * PRICE.output) / 1e6).toFixed(6);
}
