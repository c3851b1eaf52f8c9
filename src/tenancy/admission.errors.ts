import { badRequest, forbidden } from '../platform/errors.ts';

/**
 * The refusals of a request's admission into an organization, after its credential was checked
 * (authenticate.ts, and /mcp's authentication and tools alike): each with its status and sentence.
 */
export const accountNotActive = (status: string) => forbidden(`account is ${status}`);
export const notAMember = () => forbidden('not a member of this organization');
export const organizationHeaderMissing = () => badRequest('X-Organization-Id is required');
export const organizationHeaderInvalid = () =>
  badRequest('X-Organization-Id must be an organization UUID');
