import { notFound } from '../platform/errors.ts';

/** The refusals of registering a client (clients.service.ts), as the command line prints them. */
export const noServiceUser = (userId: string) => notFound(`unknown user ${userId}`);
