import { type Fragment, html, type Markup } from '../../platform/html.ts';
import { errorAlert, invalidIf, submitButton } from './form.ts';
import { layout } from './layout.ts';

/*
 * The pages people meet outside a sign-in: joining by invitation, signing up, resetting a
 * password. Plain forms under the same CSP and look as the sign-in pages; errors are sentences
 * the page shows at the top and ties to the fields (form.ts). Passwords are never refilled.
 */

const PASSWORD_HINT_ID = 'password-hint';

/** The two password fields of a new password, with the rule said beside them. */
function newPasswordFields(o: { label: string; error?: string | undefined }): Markup {
  // The rule stays beside the password; an error comes first.
  const described =
    invalidIf(o.error, PASSWORD_HINT_ID) ?? html` aria-describedby="${PASSWORD_HINT_ID}"`;
  return html`<label for="password">${o.label}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="12"${described}>
<p id="${PASSWORD_HINT_ID}" class="hint">At least 12 characters; a few words make a good one.</p>
<label for="confirmation">Confirm password</label>
<input id="confirmation" name="confirmation" type="password" autocomplete="new-password" required${invalidIf(o.error)}>`;
}

/** A page that only says something: no form, perhaps a link onwards. */
function notice(o: {
  title: string;
  lead: Fragment;
  more?: Fragment;
  link?: { href: string; label: string } | undefined;
}): string {
  return layout({
    title: o.title,
    body: html`<h1>${o.title}</h1>
<p>${o.lead}</p>
${o.more}
${o.link && html`<div class="actions"><a class="button" href="${o.link.href}">${o.link.label}</a></div>`}`,
  });
}

// Invitations

export interface InvitationView {
  readonly orgName: string;
  readonly inviter: string;
  readonly email: string;
}

/** An open invitation for an address without an account: the fields of a new one, and join. */
export function joinWithNewAccountPage(
  o: InvitationView & { action: string; name?: string; error?: string },
): string {
  return layout({
    title: `Join ${o.orgName}`,
    body: html`<h1>Join ${o.orgName}</h1>
<p>${o.inviter} invited you to join <strong>${o.orgName}</strong> on mnemo. Make your account to accept.</p>
${errorAlert(o.error)}
<form method="post" action="${o.action}">
<label for="email">Email</label>
<input id="email" type="email" value="${o.email}" readonly aria-readonly="true">
<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" required maxlength="200" value="${o.name ?? ''}">
${newPasswordFields({ label: 'Password', error: o.error })}
<div class="actions">${submitButton(`Join ${o.orgName}`)}</div>
</form>`,
  });
}

/** An open invitation for an address that has an account: sign in to it, and join. */
export function joinWithAccountPage(
  o: InvitationView & { action: string; forgotUrl: string; error?: string },
): string {
  const invalid = invalidIf(o.error);
  return layout({
    title: `Join ${o.orgName}`,
    body: html`<h1>Join ${o.orgName}</h1>
<p>${o.inviter} invited you to join <strong>${o.orgName}</strong> on mnemo. Sign in to accept.</p>
${errorAlert(o.error)}
<form method="post" action="${o.action}">
<label for="email">Email</label>
<input id="email" type="email" value="${o.email}" autocomplete="username" readonly aria-readonly="true">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${invalid}>
<div class="actions">${submitButton(`Join ${o.orgName}`)}</div>
</form>
<p class="links"><a href="${o.forgotUrl}">Forgot password?</a></p>`,
  });
}

/** An open invitation for an address without an account, where no one may make one. */
export function joinNeedsAccountPage(o: InvitationView): string {
  return notice({
    title: `Join ${o.orgName}`,
    lead: html`${o.inviter} invited you to join <strong>${o.orgName}</strong> on mnemo.`,
    more: html`<p>${o.email} has no mnemo account yet, and accounts on this server are made by its operators. Ask them to make one for ${o.email}, then open this link again.</p>`,
  });
}

/** Why an invitation link opens nothing: each said as it is, with no form. */
export function invitationGonePage(
  state: 'expired' | 'accepted' | 'revoked' | 'unknown',
  o: { orgName?: string; studioUrl: string },
): string {
  const org = o.orgName ?? 'the organization';
  const says = {
    expired: {
      title: 'This invitation has expired',
      lead: `Invitations work for a limited time. Ask someone at ${org} to invite you again.`,
    },
    accepted: {
      title: 'This invitation has already been used',
      lead: `An invitation works once. If it was you who used it, you are a member of ${org}: sign in to the studio.`,
    },
    revoked: {
      title: 'This invitation was withdrawn',
      lead: `Someone at ${org} withdrew it, or invited you again with a newer link. Ask them for a new invitation if you still need one.`,
    },
    unknown: {
      title: 'This invitation link is not valid',
      lead: 'Check that the whole link was copied. Invitation links work once and are not kept anywhere else.',
    },
  }[state];
  return notice({
    ...says,
    link: state === 'accepted' ? { href: o.studioUrl, label: 'Open the studio' } : undefined,
  });
}

// Sign-up

export interface SignUpValues {
  readonly name?: string;
  readonly email?: string;
  readonly organization?: string;
}

export function signUpPage(
  o: SignUpValues & { action: string; signInUrl: string; error?: string },
): string {
  return layout({
    title: 'Create an account',
    body: html`<h1>Create an account</h1>
<p>Your account comes with an organization of its own; invite your team to it from the studio.</p>
${errorAlert(o.error)}
<form method="post" action="${o.action}">
<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" required maxlength="200" value="${o.name ?? ''}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${o.email ?? ''}">
${newPasswordFields({ label: 'Password', error: o.error })}
<label for="organization">Organization name <span class="muted">(optional)</span></label>
<input id="organization" name="organization" type="text" autocomplete="organization" maxlength="200" value="${o.organization ?? ''}">
<div class="actions">${submitButton('Create account')}</div>
</form>
<p class="links"><span>Already have an account? <a href="${o.signInUrl}">Sign in</a></span></p>`,
  });
}

/** Sign-up when the server does not take it. */
export function signUpClosedPage(o: { byInvitation: boolean; studioUrl: string }): string {
  return notice({
    title: 'Sign-up is closed',
    lead: o.byInvitation
      ? 'Accounts on this server are made by invitation: ask an owner or admin of your organization to invite you, then open the link they send.'
      : 'Accounts on this server are made by its operators: ask them for one.',
    link: { href: o.studioUrl, label: 'Sign in' },
  });
}

export function checkEmailPage(o: { email: string }): string {
  return notice({
    title: 'Check your email',
    lead: html`We sent a link to <strong>${o.email}</strong>. Open it within 24 hours to confirm your address and create your account.`,
    more: html`<p class="muted">Nothing there? Look in the spam folder, or sign up again to have another link sent.</p>`,
  });
}

/** A sign-up link, opened: one more click makes the account (a link scanner does not click). */
export function confirmSignUpPage(o: { email: string; action: string }): string {
  return layout({
    title: 'Confirm your email',
    body: html`<h1>Confirm your email</h1>
<p>Create the mnemo account for <strong>${o.email}</strong>.</p>
<form method="post" action="${o.action}">
<div class="actions">${submitButton('Create my account')}</div>
</form>`,
  });
}

// Password reset

export function forgotPasswordPage(o: {
  action: string;
  signInUrl: string;
  email?: string;
  error?: string;
}): string {
  const invalid = invalidIf(o.error);
  return layout({
    title: 'Reset your password',
    body: html`<h1>Reset your password</h1>
<p>Enter the email of your account: we will send a link to choose a new password.</p>
${errorAlert(o.error)}
<form method="post" action="${o.action}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${o.email ?? ''}"${invalid}>
<div class="actions">${submitButton('Send reset link')}</div>
</form>
<p class="links"><a href="${o.signInUrl}">Back to sign in</a></p>`,
  });
}

/** Without email, a reset needs an operator. */
export function resetByOperatorPage(o: { signInUrl: string }): string {
  return notice({
    title: 'Reset your password',
    lead: 'This server sends no email, so a forgotten password is reset by its operators: ask one of them.',
    // The command breaks only between its arguments: never inside `--password-stdin`.
    more: html`<p class="muted">They set a new one with <code>mnemo admin user set <span class="nowrap">--user &lt;your id&gt;</span> <span class="nowrap">--password-stdin</span></code>.</p>`,
    link: { href: o.signInUrl, label: 'Back to sign in' },
  });
}

/** The same answer whether or not an account has the address. */
export function resetSentPage(o: { email: string; signInUrl: string }): string {
  return notice({
    title: 'Check your email',
    lead: html`If an account uses <strong>${o.email}</strong>, we sent it a link to choose a new password. It works once, for one hour.`,
    link: { href: o.signInUrl, label: 'Back to sign in' },
  });
}

export function newPasswordPage(o: { action: string; email: string; error?: string }): string {
  return layout({
    title: 'Choose a new password',
    body: html`<h1>Choose a new password</h1>
<p>For <strong>${o.email}</strong>. Once it is set, every browser and app signed in to the account is signed out.</p>
${errorAlert(o.error)}
<form method="post" action="${o.action}">
<input type="hidden" name="username" autocomplete="username" value="${o.email}">
${newPasswordFields({ label: 'New password', error: o.error })}
<div class="actions">${submitButton('Set password')}</div>
</form>`,
  });
}

/** Why a sign-up or reset link opens nothing. */
export function linkGonePage(
  kind: 'sign-up' | 'password-reset',
  state: 'expired' | 'used' | 'unknown',
  o: { retryUrl: string },
): string {
  const what = kind === 'sign-up' ? 'confirmation link' : 'password reset link';
  const again = kind === 'sign-up' ? 'Sign up again' : 'Ask for a new link';
  const says = {
    expired: {
      title: `This ${what} has expired`,
      lead: 'Links like this work for a limited time.',
    },
    used: { title: `This ${what} has already been used`, lead: 'Links like this work once.' },
    unknown: {
      title: `This ${what} is not valid`,
      lead: 'Check that the whole link was copied from the email.',
    },
  }[state];
  return notice({ ...says, link: { href: o.retryUrl, label: again } });
}
