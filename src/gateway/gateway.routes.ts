import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyAuthenticator, KeyHolder } from '../keys/api-key-auth.ts';
import { failureOf } from '../platform/error-handler.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import type { UsageRecorder } from '../usage/usage.recorder.ts';
import { refusedApiKey } from './api-key-refusals.ts';
import { createCallUsage } from './call-usage.ts';
import type { Catalog } from './catalog.ts';
import { registerChatRoutes } from './chat.routes.ts';
import type { Dispatcher } from './dispatch.ts';
import {
  createMemoryCalls,
  extractionModelId,
  type MemoryCalls,
  type MemoryCallsConfig,
} from './memory/memory-calls.ts';
import type { ChatMemoryStore } from './memory/memory-port.ts';
import {
  GatewayError,
  gatewayErrorOf,
  sendGatewayError,
  serverError,
  unknownUrl,
} from './openai-errors.ts';
import { registerResponsesRoutes } from './responses/responses.routes.ts';
import { registerResponsesWebSocket } from './responses/responses.websocket.routes.ts';
import type { Sealer } from './sealing.ts';
import { unknownModel } from './setup-guidance.ts';

export interface GatewayRoutesDeps {
  /** What `/v1/models` lists. */
  readonly catalog: Catalog;
  /** Sends each chat call to its model or the router's choice (built in app.ts). */
  readonly dispatcher: Dispatcher;
  readonly authenticateApiKey: ApiKeyAuthenticator;
  readonly usage: UsageRecorder;
  /** Seals what clients carry back unread: reasoning, compactions (sealing.ts). */
  readonly sealer: Sealer;
  /** How long a `/v1/responses` WebSocket may sit idle (MNEMO_GATEWAY_WS_IDLE_SECONDS). */
  readonly websocketIdleMs: number;
  /** Memory in chat calls: the store's port (src/memory/chat-memory.ts) and its settings. */
  readonly memory: {
    readonly store: ChatMemoryStore;
    readonly config: Omit<MemoryCallsConfig, 'extractionModel'> & {
      /** MNEMO_MEMORY_EXTRACTION_MODEL; the router when unset. */
      readonly extractionModel: string | undefined;
    };
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who a `/v1` call acts as: set by the key check before any route. */
    keyHolder: KeyHolder;
  }
  interface FastifyContextConfig {
    /**
     * The route's answers show nothing read from the store, so they need not wait for earlier
     * commits to reach the disk (app.ts).
     */
    revealsNoStoredState?: boolean;
  }
}

/** The time the gateway's model list reports as `created` for every model: when it started. */
const startedAt = Math.floor(Date.now() / 1000);

/**
 * OpenAI's request ids look like `req_` and 32 hex digits; clients log and show them. From a
 * random UUID, which Node draws from a pool, not a system call per id.
 */
const newRequestId = () => `req_${randomUUID().replaceAll('-', '')}`;

/**
 * The chat-completions-compatible interface under `/v1`: every answer in OpenAI's shapes,
 * errors included, with an `x-request-id`; authenticated by API keys.
 */
export function registerGatewayRoutes(
  parent: FastifyInstance,
  deps: GatewayRoutesDeps,
): MemoryCalls {
  const { catalog, dispatcher } = deps;
  const usage = createCallUsage(deps.usage, parent.log);
  const memory = createMemoryCalls({
    store: deps.memory.store,
    dispatcher,
    usage,
    log: parent.log,
    config: {
      ...deps.memory.config,
      extractionModel: extractionModelId(catalog, deps.memory.config.extractionModel),
    },
  });

  parent.register(
    async (app) => {
      app.decorateRequest('keyHolder');
      // Answers come from providers and the configuration; the store only authenticates and
      // records usage, which no answer shows.
      app.addHook('onRoute', (route) => {
        route.config = { ...route.config, revealsNoStoredState: true };
      });
      app.addHook('onRequest', async (request, reply) => {
        reply.header('x-request-id', newRequestId()).header('cache-control', 'no-store');
        const result = await deps.authenticateApiKey(request.headers.authorization);
        if (!result.ok) throw refusedApiKey(result.refusal);
        request.keyHolder = result.holder;
      });
      app.setErrorHandler((error: FastifyError, request, reply) =>
        sendGatewayError(reply, asGatewayError(error, request)),
      );
      app.setNotFoundHandler((request, reply) =>
        sendGatewayError(reply, unknownUrl(request.method, request.url)),
      );

      registerChatRoutes(app, { dispatcher, usage, memory });
      registerResponsesRoutes(app, { dispatcher, usage, sealer: deps.sealer, memory });
      registerResponsesWebSocket(app, {
        dispatcher,
        usage,
        sealer: deps.sealer,
        memory,
        idleTimeoutMs: deps.websocketIdleMs,
      });

      const models = () => [
        ...catalog.models.map((model) => ({
          id: model.id,
          object: 'model' as const,
          created: startedAt,
          owned_by: model.provider,
        })),
        { id: catalog.router.id, object: 'model' as const, created: startedAt, owned_by: 'mnemo' },
      ];

      app.get('/models', { schema: { hide: true } }, async () => ({
        object: 'list' as const,
        data: models(),
      }));
      app.get<{ Params: { '*': string } }>(
        '/models/*',
        { schema: { hide: true } },
        async (request) => {
          // Model ids contain a slash (`openai/gpt-4.1`): the rest of the path is the id.
          const id = decodeURIComponent(request.params['*']);
          const found = models().find((model) => model.id === id);
          if (!found) throw unknownModel(id, catalog);
          return found;
        },
      );

      // Offered by the API this one imitates, not by mnemo: said so, in its shape.
      for (const [path, what] of [
        ['/completions', 'The legacy completions endpoint (/v1/completions) is'],
        ['/embeddings', 'Embeddings (/v1/embeddings) are'],
      ] as const) {
        app.post(path, { schema: { hide: true } }, async () => {
          throw new GatewayError(404, {
            message: `${what} not offered by this server; use /v1/chat/completions or /v1/responses.`,
            type: 'invalid_request_error',
            param: null,
            code: 'unknown_url',
          });
        });
      }

      for (const [path, allowed] of [
        ['/chat/completions', ['POST']],
        ['/responses', ['GET', 'POST']],
        ['/responses/compact', ['POST']],
        ['/models', ['GET']],
        ['/models/*', ['GET']],
        ['/completions', ['POST']],
        ['/embeddings', ['POST']],
      ] as const) {
        registerMethodNotAllowed(app, path, [...allowed]);
      }
    },
    { prefix: '/v1' },
  );
  return memory;
}

/**
 * Anything thrown under /v1, as OpenAI's error: its own, or any other failure as the rest of
 * the service sees it (platform/error-handler.ts) — a store outage is 503 with `retry-after`.
 */
function asGatewayError(error: FastifyError, request: FastifyRequest): GatewayError {
  if (error instanceof GatewayError) return error;
  const failure = failureOf(error, request);
  // A failure of mnemo itself, in OpenAI's own words.
  return failure.status === 500 ? serverError() : gatewayErrorOf(failure);
}
