import { badRequest, conflict, forbidden, notFound } from '../platform/errors.ts';

/** The refusals of invitations (invitations.service.ts): each with its status and its sentence. */
export const invitationNotFound = () => notFound('invitation not found');
export const notAnEmail = () => badRequest('email must be an email address');
export const alreadyMember = (email: string) =>
  conflict(`${email} is already a member of this organization`);

const OWNERS_ONLY = {
  invite: 'only owners can invite owners',
  revoke: 'only owners can revoke an invitation to be an owner',
} as const;

/** What only an owner may do with an invitation to be an owner. */
export const ownersOnly = (what: keyof typeof OWNERS_ONLY) => forbidden(OWNERS_ONLY[what]);
