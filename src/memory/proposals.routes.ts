import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Environment } from '../config.ts';
import { allows, insufficientScope } from '../credentials/index.ts';
import { OrganizationHeader, PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { memoryEnabled } from '../tenancy/index.ts';
import { memoryFeatureOff } from './memory.errors.ts';
import {
  AcceptedResponse,
  DroppedResponse,
  ProposalIdParams,
  ProposalListResponse,
} from './proposals.schemas.ts';
import type { ProposalsService } from './proposals.service.ts';

export interface ProposalsRoutesDeps {
  readonly service: ProposalsService;
  readonly environment: Environment;
  /** The platform's checks (credential, rate, organization, account); sets `request.caller`. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const BASE = '/api/v1/memory-proposals';

const errors = PLATFORM_ERROR_RESPONSES;

/**
 * The review queue of memories learned from chat calls (MNEMO_MEMORY_EXTRACTION=review): each
 * member sees and decides their own. Behind the memory API's own checks: its scopes and switch.
 */
export function registerProposalsRoutes(parent: FastifyInstance, deps: ProposalsRoutesDeps): void {
  const { service } = deps;

  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();

    app.addHook('onRequest', deps.authenticate);
    app.addHook('onRequest', (request, _reply, done) => {
      const scope = request.method === 'GET' ? 'memory:read' : 'memory:write';
      done(allows(request.caller, scope) ? undefined : insufficientScope(scope));
    });
    app.addHook('onRequest', (request, _reply, done) => {
      const on = memoryEnabled(deps.environment, request.caller.memoryEnabled);
      done(on ? undefined : memoryFeatureOff());
    });

    const common = { tags: ['memory'], headers: OrganizationHeader };
    const writes = { security: [{ platformCredential: ['memory:write'] }] };

    app.get(
      BASE,
      {
        schema: {
          ...common,
          security: [{ platformCredential: ['memory:read'] }],
          summary: 'List the memories learned from your chat calls that wait for review',
          response: { 200: ProposalListResponse, ...errors },
        },
      },
      async (request) => ({ proposals: await service.list(request.caller) }),
    );

    app.post(
      `${BASE}/:id/accept`,
      {
        schema: {
          ...common,
          ...writes,
          summary: 'Accept a proposal: save it as a memory (folded like any add)',
          params: ProposalIdParams,
          response: { 200: AcceptedResponse, ...errors },
        },
      },
      async (request) => service.accept(request.caller, request.params.id),
    );

    app.delete(
      `${BASE}/:id`,
      {
        schema: {
          ...common,
          ...writes,
          summary: 'Drop a proposal: nothing is saved',
          params: ProposalIdParams,
          response: { 200: DroppedResponse, ...errors },
        },
      },
      async (request) => {
        await service.drop(request.caller, request.params.id);
        return { ok: true as const };
      },
    );
  });

  registerMethodNotAllowed(parent, BASE, ['GET']);
  registerMethodNotAllowed(parent, `${BASE}/:id`, ['DELETE']);
  registerMethodNotAllowed(parent, `${BASE}/:id/accept`, ['POST']);
}
