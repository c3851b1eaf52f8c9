/**
 * A server with nothing to route to says how to configure a provider, wherever `/v1` meets the
 * empty catalog: an unknown model (chat, responses, the model list) and the router.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../testing/gateway-server.ts';

const HINT =
  "set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY in the server's environment, or list providers and models in mnemo.config.json (see docs/gateway.md)";

const hello = [{ role: 'user', content: 'Hello there' }];

async function call(gateway: GatewayServer, method: string, path: string, body?: unknown) {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${gateway.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('no provider configured (no file, no provider key)', () => {
  let gateway: GatewayServer;
  beforeAll(async () => {
    gateway = await startGatewayServer(undefined);
  });
  afterAll(() => gateway?.close());

  test('an unknown model is 404 model_not_found, saying how to configure one', async () => {
    const notFound = {
      status: 404,
      body: {
        error: {
          message: `The model \`openai/gpt-4.1\` does not exist or you do not have access to it. This server has no model configured: ${HINT}.`,
          type: 'invalid_request_error',
          param: 'model',
          code: 'model_not_found',
        },
      },
    };
    expect(
      await call(gateway, 'POST', '/chat/completions', {
        model: 'openai/gpt-4.1',
        messages: hello,
      }),
    ).toEqual(notFound);
    expect(
      await call(gateway, 'POST', '/responses', { model: 'openai/gpt-4.1', input: 'Hello' }),
    ).toEqual(notFound);
    expect(await call(gateway, 'GET', '/models/openai/gpt-4.1')).toEqual(notFound);
  });

  test('the router says it has no models because none is configured, and how to configure one', async () => {
    expect(
      await call(gateway, 'POST', '/chat/completions', { model: 'auto', messages: hello }),
    ).toEqual({
      status: 400,
      body: {
        error: {
          message: `No model of the router \`auto\` can serve this request (needs ~7 tokens): the router has no models, because this server has none configured: ${HINT}.`,
          type: 'invalid_request_error',
          param: 'model',
          code: 'model_not_available',
        },
      },
    });
  });
});

describe('a file whose router lists no model', () => {
  let gateway: GatewayServer;
  beforeAll(async () => {
    gateway = await startGatewayServer({
      providers: {
        local: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'TEST_LOCAL_KEY' },
      },
      models: [{ id: 'local/llama3.1', provider: 'local', upstream: 'llama', contextWindow: 8 }],
      router: { id: 'auto', order: [] },
    });
  });
  afterAll(() => gateway?.close());

  test('an unknown model is the plain 404, and the router points at its order', async () => {
    const unknown = await call(gateway, 'GET', '/models/openai/gpt-4.1');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({
      message: 'The model `openai/gpt-4.1` does not exist or you do not have access to it.',
      code: 'model_not_found',
    });
    const routed = await call(gateway, 'POST', '/chat/completions', {
      model: 'auto',
      messages: hello,
    });
    expect(routed.status).toBe(400);
    expect(routed.body.error).toMatchObject({
      message:
        'No model of the router `auto` can serve this request (needs ~7 tokens): the router has no models: its order in the configuration file is empty.',
      code: 'model_not_available',
    });
  });
});
