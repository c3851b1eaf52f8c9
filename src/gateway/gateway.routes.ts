import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { ApiKeyAuthenticator, KeyHolder } from '../keys/index.ts';
import { failureOf } from '../platform/failure.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { refusedApiKey } from './api-key-refusals.ts';
import type { CallUsage } from './call-usage.ts';
import type { Catalog } from './catalog.ts';
import { registerChatRoutes } from './chat.routes.ts';
import type { Dispatcher } from './dispatch.ts';
import {
  API_KEY_SECURITY,
  COMMON_ERRORS,
  documentedOnly,
  errorAnswer,
  GATEWAY_TAG,
  otherMethods,
  REQUEST_ID_HEADER,
} from './gateway.openapi.ts';
import type { MemoryCalls } from './memory/memory-calls.ts';
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
  /** Records each call's usage for its key (call-usage.ts). */
  readonly usage: CallUsage;
  /** Seals what clients carry back unread: reasoning, compactions (sealing.ts). */
  readonly sealer: Sealer;
  /** How long a `/v1/responses` WebSocket may sit idle (MNEMO_GATEWAY_WS_IDLE_SECONDS). */
  readonly websocketIdleMs: number;
  /** Memory in chat calls: recall before, learning after (memory/memory-calls.ts). */
  readonly memory: MemoryCalls;
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
export function registerGatewayRoutes(parent: FastifyInstance, deps: GatewayRoutesDeps): void {
  const { catalog, dispatcher, usage, memory } = deps;

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

      const models = (): Model[] => [
        ...catalog.models.map((model) => ({
          id: model.id,
          object: 'model' as const,
          created: startedAt,
          owned_by: model.provider,
        })),
        { id: catalog.router.id, object: 'model' as const, created: startedAt, owned_by: 'mnemo' },
      ];

      app.get(
        '/models',
        { config: documentedOnly(LIST_MODELS_OPERATION) },
        async (): Promise<ModelList> => ({ object: 'list', data: models() }),
      );
      app.get<{ Params: { '*': string } }>(
        '/models/*',
        // OpenAPI names path parameters; the route takes the rest of the path (see `model`).
        { config: documentedOnly(GET_MODEL_OPERATION, '/v1/models/{model}') },
        async (request) => {
          // Model ids contain a slash (`openai/gpt-4.1`): the rest of the path is the id, as
          // Fastify decoded it (`%2F` included); decoding it again would make `%252F` a slash.
          const id = request.params['*'];
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
        app.post(path, { config: documentedOnly(notOfferedOperation(`/v1${path}`)) }, async () => {
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
}

/** An entry of `/v1/models`: a catalog model, or the router (`owned_by: "mnemo"`). */
const Model = Type.Object(
  {
    id: Type.String({ description: 'The id `model` takes: a catalog id, or the router’s' }),
    object: Type.Literal('model'),
    created: Type.Integer({ description: 'Unix seconds: when this server started' }),
    owned_by: Type.String({
      description: 'The provider, as the catalog names it; `mnemo` for the router',
    }),
  },
  { $id: 'Model' },
);
type Model = Static<typeof Model>;

const ModelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(Model) });
type ModelList = Static<typeof ModelList>;

const LIST_MODELS_OPERATION = {
  summary: 'List the models: the catalog’s chat models, then the router',
  description: `Every chat model of the catalog, in its order, and last the router (\`auto\` unless configured otherwise), in OpenAI’s list shape. ${otherMethods('GET, HEAD')}`,
  tags: [GATEWAY_TAG],
  security: API_KEY_SECURITY,
  response: {
    200: Type.Object(ModelList.properties, {
      description: 'The models',
      headers: REQUEST_ID_HEADER,
    }),
    ...COMMON_ERRORS,
  },
};

const GET_MODEL_OPERATION = {
  summary: 'Get one model by its id',
  description: `One entry of /v1/models. ${otherMethods('GET, HEAD')}`,
  tags: [GATEWAY_TAG],
  security: API_KEY_SECURITY,
  params: Type.Object({
    model: Type.String({
      description:
        'A model id, which contains a slash (`openai/gpt-4.1`): the rest of the path is the id. Sent percent-encoded (`openai%2Fgpt-4.1`), as OpenAPI has path parameters, or with the slash as is (`/v1/models/openai/gpt-4.1`), as OpenAI’s SDKs send it: both find it',
      examples: ['openai/gpt-4.1'],
    }),
  }),
  response: {
    // Through allOf, so that the document states Model once, for both operations.
    200: { description: 'The model', headers: REQUEST_ID_HEADER, allOf: [Model] },
    ...COMMON_ERRORS,
    404: errorAnswer(
      '`model_not_found`: no model has this id (with none configured, the message says how to configure one)',
    ),
  },
};

/** An endpoint of OpenAI's API that mnemo does not serve, as the document says it. */
const notOfferedOperation = (path: string) => ({
  summary: 'Not offered by mnemo: 404',
  description: `Offered by OpenAI’s API, not by mnemo: a key that is accepted gets 404 \`unknown_url\` in OpenAI’s shape, saying so and pointing to /v1/chat/completions and /v1/responses, whatever the body. ${otherMethods('POST')}`,
  tags: [GATEWAY_TAG],
  security: API_KEY_SECURITY,
  response: {
    404: errorAnswer(`\`unknown_url\`: ${path} is not offered by this server`),
    ...COMMON_ERRORS,
  },
});

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
