import { buttonForm, submitButton } from './form.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';

/** Asks the signed-in person whether `clientName` may have the listed scopes. */
export function consentPage(o: {
  action: string;
  abortAction: string;
  clientName: string;
  userEmail: string;
  scopes: readonly { name: string; description: string }[];
}): string {
  const scopes = o.scopes.map(
    (scope) => html`<li><code>${scope.name}</code>: ${scope.description}</li>`,
  );
  return layout({
    title: 'Allow access',
    body: html`<h1>${o.clientName} wants to access your mnemo account</h1>
<p class="muted">Signed in as ${o.userEmail}</p>
${
  scopes.length > 0 &&
  html`<p>It asks to:</p>
<ul>${scopes}</ul>`
}
<div class="actions">
${buttonForm({ action: o.action, button: submitButton('Allow') })}
${buttonForm({ action: o.abortAction, button: submitButton('Deny', { secondary: true }) })}
</div>`,
  });
}
