import { emailBodies, emailDate } from '../platform/email-layout.ts';

/** The email that carries an invitation's link. */
export function invitationEmail(o: {
  url: string;
  orgName: string;
  inviter: string;
  expiresAt: number;
}): { subject: string; text: string; html: string } {
  return {
    subject: `${o.inviter} invited you to ${o.orgName} on mnemo`,
    ...emailBodies({
      lead: `${o.inviter} invited you to join ${o.orgName} on mnemo, where your team keeps what its AI applications remember.`,
      action: { label: `Join ${o.orgName}`, url: o.url },
      notes: [
        `The link works once, until ${emailDate(o.expiresAt)}.`,
        'If you did not expect this invitation, ignore this email: nothing happens without you.',
      ],
    }),
  };
}
