import { html } from '../../platform/html.ts';
import { layout } from './layout.ts';

/**
 * What `/oauth` itself shows a person who opens it (the start banner prints it): the way to
 * sign in, and where to go next. Applications never send anyone here; they start at the
 * authorization endpoint. Plain links, so the page works without scripts under the same CSP.
 */
export function homePage(o: { publicUrl: string }): string {
  const { publicUrl } = o;
  return layout({
    title: 'Sign in',
    body: html`<h1>Sign in to mnemo</h1>
<p>This is where mnemo's applications send you to sign in. To sign in yourself, open the studio: it brings you back here for your email and password.</p>
<div class="actions"><a class="button" href="${publicUrl}/studio/">Sign in to the studio</a></div>
<h2>Where to go next</h2>
<ul>
<li><a href="${publicUrl}/studio/">The studio</a>: your memories, projects, members, usage and API keys.</li>
<li>From a terminal: <code>npx mnemo login</code> shows a code to enter on <a href="${publicUrl}/oauth/device">the device page</a>.</li>
<li>For AI applications that speak MCP (Claude, Cursor, VS Code, Codex…): the server is <code>${publicUrl}/mcp</code>; they bring you here to sign in and choose the organization they work in.</li>
<li>The API: its description is <a href="${publicUrl}/openapi.json"><code>/openapi.json</code></a>.</li>
<li>For OAuth and OpenID Connect clients: <a href="${publicUrl}/oauth/.well-known/openid-configuration">the discovery document</a>.</li>
</ul>`,
  });
}
