const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Makes text safe as element content and as a double-quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

const markup = Symbol('markup');

/** HTML made by `html`, so known safe; a plain string is always text and gets escaped. */
export interface Markup {
  readonly [markup]: string;
}

/** What `html` accepts in a `${}`: text, markup, a list of markup, or nothing. */
export type Fragment = string | Markup | readonly Markup[] | undefined | false;

/**
 * Tagged template that escapes every interpolated string, so no page can forget to: values from
 * outside (client names, emails, codes) can only ever land as text.
 *
 * @example html`<p>${clientName}</p>` // clientName `<b>` renders as `&lt;b&gt;`
 */
export function html(strings: TemplateStringsArray, ...values: readonly Fragment[]): Markup {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return { [markup]: out };
}

export function render(fragment: Fragment): string {
  if (fragment === undefined || fragment === false) return '';
  if (typeof fragment === 'string') return escapeHtml(fragment);
  if (markup in fragment) return fragment[markup];
  return fragment.map(render).join('');
}
