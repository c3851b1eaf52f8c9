import { notFound } from '../platform/errors.ts';

/** A connection the person does not have (another's, a revoked one, or no UUID): one answer. */
export const connectionNotFound = () => notFound('no such connection');
