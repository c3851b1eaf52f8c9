import { html } from '../../platform/html.ts';
import { layout } from './layout.ts';

/**
 * Shows an OAuth error (RFC 6749 §4.1.2.1: `error`, `error_description`) to a person. Only these
 * two values are ever rendered, so internals such as a stack cannot reach the page.
 */
export function errorPage(o: { error: string; description?: string }): string {
  return layout({
    title: 'Error',
    body: html`<h1>Something went wrong</h1>
${o.description && html`<p>${o.description}</p>`}
<p class="muted">Error code: <code>${o.error}</code></p>`,
  });
}
