import { emailBodies } from '../platform/email-layout.ts';

type Message = { subject: string; text: string; html: string };

/** The link that confirms a sign-up's address and makes the account. */
export function signUpEmail(o: { url: string }): Message {
  return {
    subject: 'Confirm your email to create your mnemo account',
    ...emailBodies({
      lead: 'Someone, hopefully you, asked to create a mnemo account with this address. Confirm it to create the account.',
      action: { label: 'Confirm and create the account', url: o.url },
      notes: [
        'The link works once, for 24 hours.',
        'If it was not you, ignore this email: no account is created without it.',
      ],
    }),
  };
}

/** What a sign-up with an address that has an account gets instead: no second account. */
export function accountExistsEmail(o: { signInUrl: string; resetUrl: string }): Message {
  return {
    subject: 'You already have a mnemo account',
    ...emailBodies({
      lead: 'Someone, hopefully you, tried to create a mnemo account with this address, which has one already. Sign in to it instead.',
      action: { label: 'Sign in', url: o.signInUrl },
      notes: [
        `Forgot the password? Choose a new one: ${o.resetUrl}`,
        'If it was not you, ignore this email: nothing changed.',
      ],
    }),
  };
}

/** The link to choose a new password. */
export function passwordResetEmail(o: { url: string }): Message {
  return {
    subject: 'Choose a new password for mnemo',
    ...emailBodies({
      lead: 'Someone, hopefully you, asked to reset the password of the mnemo account with this address.',
      action: { label: 'Choose a new password', url: o.url },
      notes: [
        'The link works once, for one hour. Setting a new password signs the account out everywhere.',
        'If it was not you, ignore this email: your password stays as it is.',
      ],
    }),
  };
}
