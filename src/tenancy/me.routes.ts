import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { MeResponse } from './orgs.schemas.ts';
import type { OrganizationsService } from './orgs.service.ts';

export interface MeRoutesDeps {
  readonly service: OrganizationsService;
  /** An active account, whatever its organizations; sets `request.account`. */
  readonly account: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const URL = '/api/v1/me';

/** `GET /api/v1/me`: who the credential belongs to; any scope will do. */
export function registerMeRoutes(parent: FastifyInstance, deps: MeRoutesDeps): void {
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('onRequest', deps.account);
    app.get(
      URL,
      {
        schema: {
          tags: ['organizations'],
          security: [{ platformCredential: [] }],
          summary: 'The account the credential belongs to, and its organizations',
          response: { 200: MeResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      (request) => deps.service.me(request.account.userId),
    );
  });
  registerMethodNotAllowed(parent, URL, ['GET']);
}
