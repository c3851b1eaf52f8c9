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
<div class="actions">${buttonForm({ action: o.abortAction, button: submitButton('Cancel', { secondary: true }) })}</div>`,
  });
}
