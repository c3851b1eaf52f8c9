import { conflict, forbidden, notFound } from '../platform/errors.ts';

/**
 * The refusals of an organization's membership (members.service.ts): each with its status and
 * its sentence, as the API answers them and the CLI prints them.
 */
export const memberNotFound = () => notFound('member not found');
export const noUserWithEmail = () => notFound('no user with this email');
export const alreadyMember = () => conflict('the user is already a member of this organization');
/** An organization always keeps an owner, whoever acts (the operator too). */
export const lastOwner = (change: 'demoted' | 'removed') =>
  conflict(`the last owner of the organization cannot be ${change}`);

const OWNERS_ONLY = {
  make: 'only owners can make owners',
  change: 'only owners can make owners or change an owner',
  remove: 'only owners can remove an owner',
} as const;

/** What only an owner may do to the owners of an organization. */
export const ownersOnly = (what: keyof typeof OWNERS_ONLY) => forbidden(OWNERS_ONLY[what]);
