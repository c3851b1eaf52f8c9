/**
 * The dispatcher's answers where the HTTP tests cannot easily get: every capable provider behind
 * an open circuit, timeouts, a refused provider key. Providers here are plain objects that
 * answer as told; the wire is covered by the route tests against the simulators.
 */
import { describe, expect, test } from 'vitest';
import type { Catalog, ModelConfig } from './catalog.ts';
import type { ChatRequest } from './chat.schemas.ts';
import { createCircuitBreaker } from './circuit-breaker.ts';
import { createDispatcher } from './dispatch.ts';
import {
  type ChatChunk,
  type ChatCompletion,
  type Outcome,
  type Provider,
  type UpstreamFailure,
  UpstreamStreamError,
} from './provider.ts';

const model = (id: string): ModelConfig => ({
  id,
  provider: id.split('/')[0] as string,
  upstream: id,
  vision: false,
  tools: true,
  jsonOutput: true,
  reasoning: false,
  contextWindow: 10_000,
  price: { input: 1, output: 1 },
});

const catalog: Catalog = {
  providers: new Map(),
  models: [model('a/one'), model('b/two')],
  router: { id: 'auto', order: ['a/one', 'b/two'] },
  embeddingModels: [],
  search: { embeddingModel: undefined },
};

const completion = (id: string): ChatCompletion => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: id,
  choices: [],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

/** A provider that answers each call with the next outcome it was given. */
function scripted(outcomes: (UpstreamFailure | 'ok')[]): Provider {
  return {
    async complete(call): Promise<Outcome<ChatCompletion>> {
      const next = outcomes.shift() ?? 'ok';
      return next === 'ok'
        ? { ok: true, value: completion(call.model.id) }
        : { ok: false, failure: next };
    },
    async stream() {
      throw new Error('not used');
    },
  };
}

const request = { model: 'auto', messages: [{ role: 'user', content: 'Hi' }] } as ChatRequest;
const signal = new AbortController().signal;

describe('the router', () => {
  test('a timeout or a refused provider key passes the model over', async () => {
    for (const failure of [
      { kind: 'timeout' },
      { kind: 'key-refused', status: 401, message: 'bad key' },
    ] as const) {
      const dispatcher = createDispatcher({
        catalog,
        providers: new Map([
          ['a', scripted([failure])],
          ['b', scripted([])],
        ]),
        breaker: createCircuitBreaker(),
      });
      const dispatched = await dispatcher.complete(request, signal);
      expect(dispatched.ok && dispatched.model.id).toBe('b/two');
    }
  });

  test('every capable provider behind an open circuit: 503 with when to retry', async () => {
    let now = 5_000_000;
    const breaker = createCircuitBreaker({ threshold: 1, cooldownMs: 7_000, now: () => now });
    const dispatcher = createDispatcher({
      catalog,
      providers: new Map([
        ['a', scripted([{ kind: 'unreachable', message: 'refused' }])],
        ['b', scripted([{ kind: 'timeout' }])],
      ]),
      breaker,
    });
    const first = await dispatcher.complete(request, signal);
    expect(first.ok).toBe(false);
    if (!first.ok) {
      // The last failure is the caller's: b timed out.
      expect(first.error.status).toBe(504);
      expect(first.error.headers['x-should-retry']).toBe('true');
      expect(first.error.headers['x-mnemo-route']).toMatch(
        /^none answered \(needs ~\d+ tokens\); passed over a\/one: provider unreachable; b\/two: provider timed out$/,
      );
    }
    now += 2_000;
    const second = await dispatcher.complete(request, signal);
    expect(second.ok).toBe(false);
    if (!second.ok) {
      expect(second.error.status).toBe(503);
      expect(second.error.body.error.code).toBe('model_not_available');
      expect(second.error.headers).toMatchObject({
        'x-should-retry': 'true',
        'retry-after-ms': '5000',
        'retry-after': '5',
      });
    }
  });
});

describe('a stream that breaks after it began', () => {
  test('counts against its provider’s circuit', async () => {
    const chunk: ChatChunk = {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'a/one',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    };
    const breaking: Provider = {
      complete: async () => ({ ok: true, value: completion('a/one') }),
      async stream() {
        async function* chunks() {
          yield chunk;
          throw new UpstreamStreamError({
            message: 'lost',
            type: 'api_error',
            param: null,
            code: null,
          });
        }
        return { ok: true, value: chunks() };
      },
    };
    const breaker = createCircuitBreaker({ threshold: 1 });
    const dispatcher = createDispatcher({
      catalog,
      providers: new Map([
        ['a', breaking],
        ['b', scripted([])],
      ]),
      breaker,
    });
    const dispatched = await dispatcher.stream(request, signal);
    if (!dispatched.ok) throw dispatched.error;
    const seen: ChatChunk[] = [];
    await expect(
      (async () => {
        for await (const next of dispatched.value) seen.push(next);
      })(),
    ).rejects.toBeInstanceOf(UpstreamStreamError);
    expect(seen).toEqual([chunk]);
    expect(breaker.admits('a')).toBe(false);
    expect(breaker.admits('b')).toBe(true);
  });
});
