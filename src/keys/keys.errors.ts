import { badRequest, forbidden, notFound } from '../platform/errors.ts';
import { NAME_MAX_CHARS } from './keys.schemas.ts';

// Unknown, another organization's, or (for a member) another member's key: one answer.
export const keyNotFound = () => notFound('API key not found');
export const nameRequired = () => badRequest('name must not be blank');
export const nameTooLong = () => badRequest(`name must be at most ${NAME_MAX_CHARS} characters`);
export const expiryInPast = () => badRequest('expiresAt must be in the future');
// The memory API's project rules: not in this organization 404, not readable 403.
export const projectNotFound = () => notFound('project not found');
export const projectForbidden = () => forbidden('no access to this project');
export const noKeyChanges = () => badRequest('memory or memoryAccess is required');
export const memoryBeyondAccess = () =>
  badRequest('memory cannot exceed memoryAccess (off < read < read-write)');
