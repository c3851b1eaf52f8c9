import { html } from '../../platform/html.ts';
import { buttonForm, submitButton } from './form.ts';
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

/** The one script of the page below; the CSP allows it by its hash (provider-pages.ts). */
export const SUBMIT_ON_LOAD_SCRIPT = 'document.forms[0].submit();';

/**
 * Signs out without asking, for mnemo's own studio when it proves who asked (a valid ID token
 * as hint): the person pressed "Sign out" there already. Without scripts, the button remains.
 * `logout` is a field, not the button's value: a form submitted by script sends no button.
 */
export function signingOutPage(o: { action: string; xsrf: string }): string {
  return layout({
    title: 'Signing out',
    body: html`<h1>Signing out…</h1>
${buttonForm({ action: o.action, fields: { xsrf: o.xsrf, logout: 'yes' }, button: submitButton('Sign out') })}`,
    script: SUBMIT_ON_LOAD_SCRIPT,
  });
}

export function signedOutPage(o: { clientName?: string }): string {
  return layout({
    title: 'Signed out',
    body: html`<h1>You are signed out</h1>
<p>${o.clientName ? `Your sign-out from ${o.clientName} was successful.` : 'Your sign-out was successful.'} You can close this page.</p>`,
  });
}
