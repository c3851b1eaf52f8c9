import { badRequest, notFound } from '../platform/errors.ts';

/** The refusals of apps (apps.service.ts): each with its status and its sentence. */
export const appNotFound = () => notFound('app not found');
export const rateLimitAboveMax = (max: number) =>
  badRequest(`rateLimitPerMinute must be at most ${max}, the most this server gives an app`);
export const noAppChanges = () =>
  badRequest('at least one of name, role or rateLimitPerMinute is required');
