import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerAuditRoutes } from '../audit/audit.routes.ts';
import type { Environment } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { PlatformAuthentication } from '../platform/authenticate.ts';
import { parseUuid } from '../platform/uuid.ts';
import { registerCollaboratorsRoutes } from '../projects/collaborators.routes.ts';
import { createCollaboratorsService } from '../projects/collaborators.service.ts';
import { findProjectOrganization } from '../projects/projects.repository.ts';
import { registerProjectsRoutes } from '../projects/projects.routes.ts';
import { createProjectsService } from '../projects/projects.service.ts';
import { registerMeRoutes } from './me.routes.ts';
import { registerMembersRoutes } from './members.routes.ts';
import { createMembersService } from './members.service.ts';
import { organizationExists } from './orgs.repository.ts';
import { registerOrgRoutes } from './orgs.routes.ts';
import { createOrganizationsService } from './orgs.service.ts';

export interface OrganizationManagementDeps {
  readonly authenticate: PlatformAuthentication;
  readonly database: Database;
  readonly environment: Environment;
}

const pathParam = (request: FastifyRequest, name: string) =>
  parseUuid((request.params as Record<string, string | undefined>)[name]);

/**
 * The studio's organization management: the account (`/me`), organizations,
 * members, projects, collaborators and the audit log. Every change writes one audit row in its
 * own transaction.
 */
export function registerOrganizationManagement(
  app: FastifyInstance,
  deps: OrganizationManagementDeps,
): void {
  const { authenticate, database } = deps;
  const { db } = database;

  // The organization a path names: unknown, or no UUID at all, is 404 before membership.
  const orgInPath = authenticate.memberOf(async (request) => {
    const orgId = pathParam(request, 'orgId');
    return orgId && (await organizationExists(db, orgId)) ? orgId : undefined;
  });
  const projectInPath = authenticate.memberOf(async (request) => {
    const projectId = pathParam(request, 'projectId');
    return projectId ? findProjectOrganization(db, projectId) : undefined;
  });

  const organizations = createOrganizationsService({
    database,
    environment: deps.environment,
  });
  registerMeRoutes(app, { service: organizations, account: authenticate.account });
  registerOrgRoutes(app, { service: organizations, authenticate: orgInPath });
  registerMembersRoutes(app, { service: createMembersService(database), authenticate: orgInPath });
  registerProjectsRoutes(app, {
    service: createProjectsService(database),
    authenticateOrg: orgInPath,
    authenticateProject: projectInPath,
  });
  registerCollaboratorsRoutes(app, {
    service: createCollaboratorsService(database),
    authenticate: projectInPath,
  });
  registerAuditRoutes(app, { database, member: authenticate.member });
}
