import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.ts';
import {
  ErrorBody,
  OrganizationHeader,
  RateLimitedBody,
  StoreUnavailableBody,
} from '../platform/api-schemas.ts';
import type { PlatformAuthentication } from '../platform/authenticate.ts';
import { requireJsonBody } from '../platform/json-body.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { requireScope } from '../platform/scopes.ts';
import { type ApiKeyAuthenticator, createApiKeyAuthenticator } from './api-key-auth.ts';
import {
  CreatedKeyResponse,
  CreateKeyBody,
  KeyIdParams,
  KeyListResponse,
  RevokedResponse,
} from './keys.schemas.ts';
import { createKeysService } from './keys.service.ts';
import { createLastUsedRecorder } from './last-used.ts';

export interface KeyRoutesDeps {
  readonly authenticate: Pick<PlatformAuthentication, 'member'>;
  readonly database: Database;
  /** How long a key's use may wait before `last_used_at` is written (last-used.ts). */
  readonly lastUsedFlushMs?: number;
}

const BASE = '/api/v1/api-keys';

const errors = {
  429: RateLimitedBody,
  503: StoreUnavailableBody,
  '4xx': ErrorBody,
  '5xx': ErrorBody,
};

/**
 * The API keys endpoints of the platform API, on the platform credential with the `keys` scope.
 * Returns the chat interface's key check, which shares this app's last-used recorder (written
 * in batches, and once more when the app closes).
 */
export function registerKeyRoutes(
  parent: FastifyInstance,
  deps: KeyRoutesDeps,
): ApiKeyAuthenticator {
  const { database } = deps;
  const service = createKeysService({ database });
  const lastUsed = createLastUsedRecorder({
    database,
    ...(deps.lastUsedFlushMs === undefined ? {} : { flushIntervalMs: deps.lastUsedFlushMs }),
    onError: (error) => parent.log.warn({ err: error }, 'writing API keys last used failed'),
  });
  parent.addHook('onClose', () => lastUsed.close());

  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();

    app.addHook('onRequest', deps.authenticate.member);
    // With account status and membership (403), before anything about the request itself.
    app.addHook('onRequest', requireScope('keys'));
    app.addHook('preValidation', requireJsonBody);

    const common = {
      tags: ['api-keys'],
      headers: OrganizationHeader,
      security: [{ platformCredential: ['keys'] }],
    };

    app.post(
      BASE,
      {
        schema: {
          ...common,
          summary: 'Create an API key for the chat interface; its secret is shown this once',
          body: CreateKeyBody,
          response: { 201: CreatedKeyResponse, ...errors },
        },
      },
      async (request, reply) => {
        const created = await service.create(request.caller, request.body);
        return reply.code(201).header('location', `${BASE}/${created.key.id}`).send(created);
      },
    );

    app.get(
      BASE,
      {
        schema: {
          ...common,
          summary: "List API keys: your own, or the organization's for owners and admins",
          response: { 200: KeyListResponse, ...errors },
        },
      },
      async (request) => ({ keys: await service.list(request.caller) }),
    );

    app.delete(
      `${BASE}/:id`,
      {
        schema: {
          ...common,
          summary: 'Revoke an API key (idempotent); it stops working at once',
          params: KeyIdParams,
          response: { 200: RevokedResponse, ...errors },
        },
      },
      async (request) => {
        await service.revoke(request.caller, request.params.id);
        return { ok: true as const };
      },
    );
  });

  registerMethodNotAllowed(parent, BASE, ['GET', 'POST']);
  registerMethodNotAllowed(parent, `${BASE}/:id`, ['DELETE']);

  return createApiKeyAuthenticator({ database, lastUsed });
}
