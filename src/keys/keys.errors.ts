import { badRequest, notFound } from '../platform/errors.ts';
import { NAME_MAX_CHARS } from './keys.schemas.ts';

// Unknown, another organization's, or (for a member) another member's key: one answer.
export const keyNotFound = () => notFound('API key not found');
export const nameTooLong = () => badRequest(`name must be at most ${NAME_MAX_CHARS} characters`);
const EXPIRY_IN_PAST = 'expiresAt must be in the future';
const MEMORY_BEYOND_ACCESS = 'memory cannot exceed memoryAccess (off < read < read-write)';
export const expiryInPast = () => badRequest(EXPIRY_IN_PAST);
export const noKeyChanges = () => badRequest('memory or memoryAccess is required');
export const memoryBeyondAccess = () => badRequest(MEMORY_BEYOND_ACCESS);

/** The rules of a key's settings no schema can state, as an operation's description lists them. */
export const KEY_RULES_NO_SCHEMA_STATES = {
  expiry: { [EXPIRY_IN_PAST]: '`expiresAt` is not later than now' },
  memory: {
    [MEMORY_BEYOND_ACCESS]:
      '`memory` would read or write more than `memoryAccess` allows, with either taken from the key as it is when not given',
  },
};
