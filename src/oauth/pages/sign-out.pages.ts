import { buttonForm, submitButton } from './form.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';

/**
 * Asks before ending the session, since a sign-out link can be followed by anyone's page.
 * oidc-provider signs out only when `logout` is sent, so the other form simply leaves it out.
 */
export function signOutPage(o: { action: string; xsrf: string; host: string }): string {
  const fields = { xsrf: o.xsrf };
  return layout({
    title: 'Sign out',
    body: html`<h1>Sign out</h1>
<p>Do you want to sign out of ${o.host}?</p>
<div class="actions">
${buttonForm({ action: o.action, fields, button: submitButton('Sign out', { name: 'logout', value: 'yes' }) })}
${buttonForm({ action: o.action, fields, button: submitButton('Stay signed in', { secondary: true }) })}
</div>`,
  });
}

export function signedOutPage(o: { clientName?: string }): string {
  return layout({
    title: 'Signed out',
    body: html`<h1>You are signed out</h1>
<p>${o.clientName ? `Your sign-out from ${o.clientName} was successful.` : 'Your sign-out was successful.'} You can close this page.</p>`,
  });
}
