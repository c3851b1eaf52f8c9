import { html } from '../../platform/html.ts';
import { buttonForm, errorAlert, hidden, invalidIf, submitButton } from './form.ts';
import { layout } from './layout.ts';

// The device flow's three pages (RFC 8628 §3.3): enter the code, confirm it, done.

/** Asks for the code the device shows. The field names are oidc-provider's: `xsrf`, `user_code`. */
export function deviceCodePage(o: {
  action: string;
  xsrf: string;
  userCode?: string;
  error?: string;
}): string {
  return layout({
    title: 'Connect a device',
    body: html`<h1>Connect a device</h1>
${errorAlert(o.error)}
<form method="post" action="${o.action}">
${hidden('xsrf', o.xsrf)}
<label for="user_code">Code shown on your device</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required value="${o.userCode ?? ''}"${invalidIf(o.error)}>
<div class="actions">${submitButton('Continue')}</div>
</form>`,
  });
}

/**
 * Shows the code so the person can compare it with their device's before granting it: RFC 8628
 * §5.4 (remote phishing) is why this step exists. Two forms, so that cancelling never sends
 * `confirm=yes`.
 */
export function deviceConfirmPage(o: {
  action: string;
  xsrf: string;
  userCode: string;
  clientName: string;
}): string {
  const fields = { xsrf: o.xsrf, user_code: o.userCode };
  return layout({
    title: 'Check the code',
    body: html`<h1>Check the code</h1>
<p>${o.clientName} wants to sign in on a device with this code:</p>
<p class="user-code">${o.userCode}</p>
<p>Continue only if it matches the code your device shows. If it does not, cancel: someone else may be trying to get into your account.</p>
<div class="actions">
${buttonForm({ action: o.action, fields: { ...fields, confirm: 'yes' }, button: submitButton('Continue') })}
${buttonForm({ action: o.action, fields, button: submitButton('Cancel', { secondary: true, name: 'abort', value: 'yes' }) })}
</div>`,
  });
}

export function deviceDonePage(o: { clientName: string }): string {
  return layout({
    title: 'Device connected',
    body: html`<h1>Device connected</h1>
<p>You are signed in on ${o.clientName}. You can close this page.</p>`,
  });
}
