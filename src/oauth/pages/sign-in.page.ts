import { html } from '../../platform/html.ts';
import { buttonForm, errorAlert, invalidIf, submitButton } from './form.ts';
import { layout } from './layout.ts';

/**
 * The login prompt. `error` is shown as given, so the caller words it to reveal nothing about
 * which accounts exist. The password is never refilled: it must not travel back in a page.
 */
export function signInPage(o: {
  action: string;
  abortAction: string;
  clientName: string;
  /** The page to reset a forgotten password (which says what to do without email). */
  forgotUrl: string;
  /** Where to make an account, when this server lets people sign up. */
  signUpUrl?: string | undefined;
  email?: string;
  error?: string;
}): string {
  const invalid = invalidIf(o.error);
  return layout({
    title: 'Sign in',
    body: html`<h1>Sign in</h1>
<p>to continue to ${o.clientName}</p>
${errorAlert(o.error)}
<form method="post" action="${o.action}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ''}"${invalid}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${invalid}>
<div class="actions">${submitButton('Sign in')}</div>
</form>
<p class="links"><a href="${o.forgotUrl}">Forgot password?</a>${o.signUpUrl && html`<a href="${o.signUpUrl}">Create an account</a>`}</p>
<div class="actions">${buttonForm({ action: o.abortAction, button: submitButton('Cancel', { secondary: true }) })}</div>`,
  });
}
