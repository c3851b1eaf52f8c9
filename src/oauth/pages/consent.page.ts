import { html, type Markup } from '../../platform/html.ts';
import { buttonForm, errorAlert, invalidIf, submitButton } from './form.ts';
import { layout } from './layout.ts';

/**
 * Where a client's name comes from, when not from the operator: a client ID metadata document
 * (its host is what vouches for it: anyone can write any name) or its own registration.
 */
export type ClientSource =
  | { readonly kind: 'metadata-document'; readonly host: string }
  | { readonly kind: 'registered' };

/** An organization the person may let the client act in. */
export interface OrganizationChoice {
  readonly id: string;
  readonly name: string;
  readonly role: string;
}

/**
 * Asks the signed-in person whether `clientName` may have the listed scopes. For a connection
 * of the MCP server (`organizations` given) it also asks which organization the client acts
 * in: a radio group when there are several, a statement when there is one.
 */
export function consentPage(o: {
  action: string;
  abortAction: string;
  clientName: string;
  clientSource?: ClientSource;
  userEmail: string;
  scopes: readonly { name: string; description: string }[];
  organizations?: readonly OrganizationChoice[];
  /** The organization chosen before (the page shown again with an error). */
  chosen?: string;
  error?: string;
}): string {
  const scopes = o.scopes.map(
    (scope) => html`<li><code>${scope.name}</code>: ${scope.description}</li>`,
  );
  const deny = buttonForm({
    action: o.abortAction,
    button: submitButton('Deny', { secondary: true }),
  });
  const [only, ...others] = o.organizations ?? [];
  const asked =
    scopes.length > 0 &&
    html`<p>It asks to:</p>
<ul>${scopes}</ul>`;
  const intro = html`<p class="muted">Signed in as ${o.userEmail}</p>
${o.clientSource && source(o.clientSource)}
${errorAlert(o.error)}
${asked}`;
  if (only !== undefined && others.length > 0) {
    return layout({
      title: 'Allow access',
      body: html`<h1>${o.clientName} wants to access your mnemo account</h1>
${intro}
<form method="post" action="${o.action}">
${organizationChoice(o.organizations ?? [], o.chosen, o.error)}
<div class="actions">${submitButton('Allow')}</div>
</form>
<div class="actions">${deny}</div>`,
    });
  }
  return layout({
    title: 'Allow access',
    body: html`<h1>${o.clientName} wants to access your mnemo account</h1>
${intro}
${only && html`<p>It will act in the organization <strong>${only.name}</strong>.</p>`}
<div class="actions">
${buttonForm({
  action: o.action,
  ...(only ? { fields: { organization: only.id } } : {}),
  button: submitButton('Allow'),
})}
${deny}
</div>`,
  });
}

/**
 * The MCP client asks for a person who belongs to no organization: there is nothing it could
 * act in, so the person can only go back to it.
 */
export function noOrganizationPage(o: {
  abortAction: string;
  clientName: string;
  userEmail: string;
}): string {
  return layout({
    title: 'No organization',
    body: html`<h1>${o.clientName} cannot connect yet</h1>
<p class="muted">Signed in as ${o.userEmail}</p>
<p>It works in one of your organizations, and you do not belong to any. Ask an owner of your organization to add you, then connect again.</p>
<div class="actions">${buttonForm({ action: o.abortAction, button: submitButton('Go back', { secondary: true }) })}</div>`,
  });
}

function source(client: ClientSource): Markup {
  return client.kind === 'metadata-document'
    ? html`<p>Its details are published by <strong>${client.host}</strong>.</p>`
    : html`<p class="muted">It registered itself: mnemo has not checked its name.</p>`;
}

/** One radio per organization, in a fieldset its legend names; a choice is required. */
function organizationChoice(
  organizations: readonly OrganizationChoice[],
  chosen: string | undefined,
  error: string | undefined,
): Markup {
  const invalid = invalidIf(error);
  const radios = organizations.map((org, i) => {
    const id = `organization-${i}`;
    const checked = org.id === chosen ? html` checked` : undefined;
    return html`<div class="choice"><input type="radio" id="${id}" name="organization" value="${org.id}" required${checked}${invalid}><label for="${id}">${org.name} <span class="muted">(${org.role})</span></label></div>`;
  });
  return html`<fieldset><legend>Which organization does it act in?</legend>
${radios}
</fieldset>`;
}
