import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/api-schemas.ts';
import { MemberRole } from '../tenancy/index.ts';

/**
 * An address as invitations take it: something, `@`, something, no white space inside (around
 * it, white space is trimmed).
 */
const EMAIL_PATTERN = '^\\s*[^\\s@\\u0000\\uD800-\\uDFFF]+@[^\\s@\\u0000\\uD800-\\uDFFF]+\\s*$';

export const InvitationParams = Type.Object({
  orgId: Type.String({ description: 'Organization id' }),
  invitationId: Type.String({ description: 'Invitation id' }),
});

export const Invitation = Type.Object(
  {
    id: Uuid('Invitation id'),
    email: Type.String({ description: 'Who is invited (lower-cased)' }),
    role: MemberRole,
    invitedBy: Uuid('Who invited'),
    createdAt: Timestamp('When it was made'),
    expiresAt: Timestamp('When its link stops working'),
  },
  { $id: 'Invitation', additionalProperties: false },
);
export type Invitation = Static<typeof Invitation>;

export const InvitationBody = Type.Object(
  {
    email: Type.String({
      minLength: 1,
      maxLength: 254,
      pattern: EMAIL_PATTERN,
      errorMessage: { pattern: 'email must be an email address' },
      description: 'The address to invite: a local part, @, a domain, no white space',
    }),
    role: Type.Optional(MemberRole),
  },
  {
    additionalProperties: false,
    description: 'role: member unless given; only owners invite owners',
  },
);
export type InvitationBody = Static<typeof InvitationBody>;

export const InvitationCreated = Type.Object(
  {
    invitation: Invitation,
    url: Type.String({
      description:
        'The link to join, shown this once (only a hash of its secret is kept); single use, until expiresAt',
    }),
    emailed: Type.Boolean({
      description:
        'Whether it was emailed (MNEMO_SMTP_URL); false: no email is configured, or sending failed: pass the url on',
    }),
  },
  { description: 'The invitation, and its link' },
);
export type InvitationCreated = Static<typeof InvitationCreated>;

export const InvitationsResponse = Type.Object(
  { invitations: Type.Array(Invitation, { description: 'Pending ones, newest first' }) },
  { description: 'The invitations not yet accepted, revoked or expired' },
);
