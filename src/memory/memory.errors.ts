import { ApiError, badRequest, forbidden, notFound } from '../platform/errors.ts';
import { CATEGORIES, type MemoryItem } from './memory.schemas.ts';

// docs/design.md: an id that is not a UUID, or a memory the caller may not see, answers like an unknown id.
export const memoryNotFound = () => notFound('memory not found');
export const memoryFeatureOff = () => notFound('memory is not enabled for this organization');
export const unknownCategory = () => badRequest(`category must be one of ${CATEGORIES.join(', ')}`);
export const projectWithUser = () => badRequest('project cannot be combined with user');
export const orgExportOwnersOnly = () => forbidden('only owners can export the organization');
/** What contentProblem found wrong with a memory's text. */
export const badContent = (problem: string) => badRequest(problem);
export const unknownTargetUser = () => badRequest('user is not a member of this organization');
export const overrideForbidden = () =>
  forbidden('acting for another member is restricted to organization owners and admins');
export const noUpdateFields = () => badRequest('at least one of content or category is required');
/** What is wrong with a memory's text, if anything: the one rule for adds, updates and imports. */
export function contentProblem(content: string, maxChars: number): string | undefined {
  if (!/\S/u.test(content)) return 'content is required';
  // Characters, not UTF-16 units: an emoji is one character.
  if (content.length > maxChars && [...content].length > maxChars) {
    return `content is too long: at most ${maxChars} characters`;
  }
  return undefined;
}
export const invalidBaseUpdatedAt = () =>
  badRequest('baseUpdatedAt must be a timestamp like 2026-11-22T09:30:00.000Z');
export const editConflict = (current: MemoryItem) =>
  new ApiError(409, 'conflict', 'the memory was changed by another writer since baseUpdatedAt', {
    body: { memory: current },
  });
export const searchQueryRequired = () => badRequest('q is required');
export const proposalNotFound = () => notFound('proposal not found');
