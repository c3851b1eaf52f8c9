import { badRequest, notFound } from '../platform/errors.ts';
import { MAX_EXTERNAL_ID_CHARS } from './end-users.schemas.ts';

/** The refusals of end users (end-users.service.ts): each with its status and its sentence. */
export const endUserNotFound = () => notFound('end user not found');
export const externalIdLength = () =>
  badRequest(`externalId must be 1 to ${MAX_EXTERNAL_ID_CHARS} characters`);
export const externalIdControl = () => badRequest('externalId must not contain control characters');
/** What storable-text.ts found wrong with the id's text. */
export const externalIdText = (problem: string) => badRequest(`externalId ${problem}`);
