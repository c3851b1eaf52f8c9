import { badRequest, conflict, forbidden, notFound } from '../platform/errors.ts';

/**
 * A project pool as the memory API and API keys reach it: not in the organization (or not a
 * UUID) 404; in it, without the access the request needs, 403.
 */
export const projectNotFound = () => notFound('project not found');

const PROJECT_NEEDS = {
  read: 'no access to this project',
  edit: 'editor access to this project is required',
  own: 'owner access to this project is required',
} as const;

export const projectForbidden = (need: keyof typeof PROJECT_NEEDS) =>
  forbidden(PROJECT_NEEDS[need]);

/** The refusals of managing projects and their collaborators (projects.service.ts, collaborators.service.ts). */
export const projectIdTaken = (id: string) => conflict(`a project with id ${id} already exists`);
export const poolNotEmpty = () =>
  conflict("the project's pool still has memories: delete them first");
export const keysBoundToProject = () =>
  conflict('API keys are bound to the project: revoke them first');
export const collaboratorNotFound = () => notFound('collaborator not found');
export const collaboratorNotMember = () =>
  badRequest('the user is not a member of the organization of this project');
/** A project that has owners keeps at least one. */
export const lastProjectOwner = (change: 'demoted' | 'removed') =>
  conflict(`the last owner of the project cannot be ${change}`);
export const projectManagersOnly = (what: string) =>
  forbidden(`only the project's owners, and owners and admins of the organization, can ${what}`);
