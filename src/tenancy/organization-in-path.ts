import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import { parseUuid } from '../platform/uuid.ts';
import { organizationExists } from './orgs.repository.ts';

/** A UUID path parameter, or undefined when the path has none or something else. */
export const uuidInPath = (request: FastifyRequest, name: string) =>
  parseUuid((request.params as Record<string, string | undefined>)[name]);

/**
 * The organization `/api/v1/orgs/{orgId}/…` names, for the authentication of its routes: an
 * unknown one, or no UUID at all, is undefined (404 before membership is looked at).
 */
export const organizationInPath =
  (db: Kysely<Tables>) =>
  async (request: FastifyRequest): Promise<string | undefined> => {
    const orgId = uuidInPath(request, 'orgId');
    return orgId && (await organizationExists(db, orgId)) ? orgId : undefined;
  };
