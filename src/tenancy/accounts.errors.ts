import { badRequest, conflict, notFound } from '../platform/errors.ts';

/**
 * The refusals of managing accounts as the operator (accounts.service.ts): each with its status
 * and the sentence the command line prints.
 */
export const noAccount = (userId: string) => notFound(`unknown user ${userId}`);
export const accountIdTaken = (userId: string) =>
  conflict(`a user with id ${userId} already exists`);
export const emailTaken = (email: string) => conflict(`the email ${email} is already taken`);
export const weakNewPassword = (problem: string) => badRequest(`the new password: ${problem}`);
