import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireScope } from '../credentials/index.ts';
import {
  OrganizationHeader,
  PLATFORM_ERROR_RESPONSES,
  rulesNoSchemaStates,
} from '../platform/api-schemas.ts';
import { requireJsonBody } from '../platform/json-body.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import type { PlatformAuthentication } from '../tenancy/index.ts';
import { KEY_RULES_NO_SCHEMA_STATES } from './keys.errors.ts';
import {
  CreatedKeyResponse,
  CreateKeyBody,
  KeyIdParams,
  KeyListResponse,
  RevokedResponse,
  UpdatedKeyResponse,
  UpdateKeyBody,
} from './keys.schemas.ts';
import type { KeysService } from './keys.service.ts';

export interface KeyRoutesDeps {
  readonly authenticate: Pick<PlatformAuthentication, 'member'>;
  readonly keys: KeysService;
}

const BASE = '/api/v1/api-keys';

const errors = PLATFORM_ERROR_RESPONSES;

/**
 * The API keys endpoints of the platform API, on the platform credential with the `keys` scope.
 * The chat interface's key check is api-key-auth.ts, built beside these in app.ts.
 */
export function registerKeyRoutes(parent: FastifyInstance, deps: KeyRoutesDeps): void {
  const service = deps.keys;

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
          description: rulesNoSchemaStates({
            ...KEY_RULES_NO_SCHEMA_STATES.expiry,
            ...KEY_RULES_NO_SCHEMA_STATES.memory,
          }),
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

    app.patch(
      `${BASE}/:id`,
      {
        schema: {
          ...common,
          summary: "Change an API key's memory settings (memory, memoryAccess)",
          description: rulesNoSchemaStates(KEY_RULES_NO_SCHEMA_STATES.memory),
          params: KeyIdParams,
          body: UpdateKeyBody,
          response: { 200: UpdatedKeyResponse, ...errors },
        },
      },
      async (request) => ({
        key: await service.update(request.caller, request.params.id, request.body),
      }),
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
  registerMethodNotAllowed(parent, `${BASE}/:id`, ['PATCH', 'DELETE']);
}
