import { html, type Markup } from '../../platform/html.ts';

/** A page shows at most one error, so one fixed id is enough to point fields at it. */
const ERROR_ID = 'error';

export function hidden(name: string, value: string): Markup {
  return html`<input type="hidden" name="${name}" value="${value}">`;
}

/** The error, announced by screen readers as soon as the page loads. */
export function errorAlert(error: string | undefined): Markup | undefined {
  return error ? html`<p id="${ERROR_ID}" class="alert" role="alert">${error}</p>` : undefined;
}

/**
 * Attributes that mark a field wrong and tie it to the error's text, when there is an error;
 * `others` are the ids of what else describes the field (a hint), said after the error. An
 * element takes one `aria-describedby`: a second one would be dropped by the parser.
 */
export function invalidIf(error: string | undefined, ...others: string[]): Markup | undefined {
  return error
    ? html` aria-invalid="true" aria-describedby="${[ERROR_ID, ...others].join(' ')}"`
    : undefined;
}

/** A real submit button; `name`/`value` are sent only when this button is the one pressed. */
export function submitButton(
  label: string,
  o: { secondary?: boolean; name?: string; value?: string } = {},
): Markup {
  const named = o.name === undefined ? undefined : html` name="${o.name}" value="${o.value ?? ''}"`;
  const secondary = o.secondary ? html` class="secondary"` : undefined;
  return html`<button type="submit"${named}${secondary}>${label}</button>`;
}

/** A form of hidden fields and one button, for the choices that need no input (deny, cancel). */
export function buttonForm(o: {
  action: string;
  fields?: Readonly<Record<string, string>>;
  button: Markup;
}): Markup {
  const fields = Object.entries(o.fields ?? {}).map(([name, value]) => hidden(name, value));
  return html`<form method="post" action="${o.action}">${fields}${o.button}</form>`;
}
