import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import { uuidInPath } from './organization-in-path.ts';
import { findProjectOrganization } from './projects.repository.ts';

/**
 * The organization of the project `/api/v1/projects/{projectId}/…` names, for the authentication
 * of its routes: an unknown project, or no UUID at all, is undefined (404 before membership).
 */
export const projectOrganizationInPath =
  (db: Kysely<Tables>) =>
  async (request: FastifyRequest): Promise<string | undefined> => {
    const projectId = uuidInPath(request, 'projectId');
    return projectId ? findProjectOrganization(db, projectId) : undefined;
  };
