import { badRequest, conflict, forbidden, notFound } from '../platform/errors.ts';

/**
 * The refusals of organizations and of who may manage them (orgs.service.ts, roles.ts): each with
 * its status and its sentence.
 */
/** An organization, an account or a project the caller may not see: as unknown as any other. */
export const notFoundHere = () => notFound('not found');
/** The operator named an organization that does not exist. */
export const noOrganization = (orgId: string) => notFound(`no organization ${orgId}`);
export const nothingToChange = () =>
  badRequest('nothing to change: give name, userOverride or both');
export const managersOnly = (what: string) => forbidden(`only owners and admins can ${what}`);
export const organizationIdTaken = (id: string) =>
  conflict(`an organization with id ${id} already exists`);
/** What only the operator of the command line may do. */
export const operatorOnly = (what: string) => forbidden(`only the operator can ${what}`);
