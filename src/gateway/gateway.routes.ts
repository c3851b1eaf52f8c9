import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { isStoreUnavailable } from '../db/availability.ts';
import type { ApiKeyAuthenticator } from '../keys/api-key-auth.ts';
import type { UsageRecorder } from '../usage/usage.recorder.ts';
import { createCallUsage } from './call-usage.ts';
import type { Catalog } from './catalog.ts';
import { registerChatRoutes } from './chat.routes.ts';
import { createCircuitBreaker } from './circuit-breaker.ts';
import { createDispatcher } from './dispatch.ts';
import {
  GatewayError,
  invalidRequest,
  modelNotFound,
  sendGatewayError,
  serverError,
  unknownUrl,
} from './openai-errors.ts';
import { createProviders } from './providers/provider-kinds.ts';
import { createTransport } from './providers/transport.ts';
import { registerResponsesRoutes } from './responses/responses.routes.ts';

export interface GatewayRoutesDeps {
  readonly catalog: Catalog;
  readonly authenticateApiKey: ApiKeyAuthenticator;
  readonly usage: UsageRecorder;
  /** How long a provider may take to start answering, or go silent mid-answer. */
  readonly timeoutMs: number;
}

/** Who a `/v1` call acts as: the API key's organization, user and key. */
export interface KeyHolder {
  readonly orgId: string;
  readonly userId: string;
  readonly keyId: string;
  readonly projectId: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
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
  const { catalog } = deps;

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
        if (!result.ok) {
          throw new GatewayError(result.status, { ...result.body.error });
        }
        request.keyHolder = {
          orgId: result.orgId,
          userId: result.userId,
          keyId: result.keyId,
          projectId: result.projectId,
        };
      });
      app.setErrorHandler((error: FastifyError, request, reply) =>
        sendGatewayError(reply, asGatewayError(error, request)),
      );
      app.setNotFoundHandler((request, reply) =>
        sendGatewayError(reply, unknownUrl(request.method, request.url)),
      );

      const transport = createTransport({
        firstByteTimeoutMs: deps.timeoutMs,
        idleTimeoutMs: deps.timeoutMs,
      });
      app.addHook('onClose', () => transport.close());
      const dispatcher = createDispatcher({
        catalog,
        providers: createProviders(catalog, transport),
        breaker: createCircuitBreaker(),
      });
      const usage = createCallUsage(deps.usage, app.log);
      registerChatRoutes(app, { dispatcher, usage });
      registerResponsesRoutes(app, { dispatcher, usage });

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
          if (!found) throw modelNotFound(id);
          return found;
        },
      );

      // Offered by the API this one imitates, not by mnemo: said so, in its shape.
      for (const [path, what] of [
        ['/completions', 'The legacy completions endpoint'],
        ['/embeddings', 'Embeddings'],
      ] as const) {
        app.post(path, { schema: { hide: true } }, async () => {
          throw new GatewayError(404, {
            message: `${what} (/v1${path}) are not offered by this server; use /v1/chat/completions or /v1/responses.`,
            type: 'invalid_request_error',
            param: null,
            code: 'unknown_url',
          });
        });
      }
    },
    { prefix: '/v1' },
  );
}

/** Anything thrown under /v1, as OpenAI's error: its own, Fastify's 4xx, or a 500/503. */
function asGatewayError(error: FastifyError, request: FastifyRequest): GatewayError {
  if (error instanceof GatewayError) return error;
  if (isStoreUnavailable(error)) {
    request.log.warn({ err: error }, 'store unavailable');
    return new GatewayError(503, {
      message: 'The server is temporarily unable to handle the request; retry shortly.',
      type: 'api_error',
      param: null,
      code: 'service_unavailable',
    });
  }
  const status = error.statusCode ?? 500;
  if (status < 500) {
    if (status === 413)
      return new GatewayError(413, {
        message: 'Request body is too large.',
        type: 'invalid_request_error',
        param: null,
        code: 'request_too_large',
      });
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return new GatewayError(415, {
        message: 'Content-Type must be application/json.',
        type: 'invalid_request_error',
        param: null,
        code: null,
      });
    }
    return invalidRequest(
      error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP')
        ? 'We could not parse the JSON body of your request.'
        : error.message,
    );
  }
  request.log.error({ err: error }, 'internal error');
  return serverError();
}
