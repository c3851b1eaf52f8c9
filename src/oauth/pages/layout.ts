import { escapeHtml, type Markup, render } from '../../platform/html.ts';

/*
 * One stylesheet for every page, inline because the pages load nothing from anywhere (the CSP can
 * stay `default-src 'none'`). Colours meet WCAG AA in both schemes: text ≥ 4.5:1, borders and
 * the focus ring ≥ 3:1.
 */
const STYLE = `
:root{color-scheme:light dark;--fg:#16181d;--muted:#5a6170;--bg:#f6f7f9;--surface:#fff;--line:#8a919e;--edge:#dfe2e8;--accent:#4338ca;--on-accent:#fff;--danger:#b42318}
@media (prefers-color-scheme:dark){:root{--fg:#eceef2;--muted:#a3aab8;--bg:#0f1115;--surface:#171a21;--line:#6b7382;--edge:#2c313c;--accent:#a5b4fc;--on-accent:#0f1115;--danger:#ff8a80}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;overflow-wrap:anywhere}
main{max-width:27rem;margin:3rem auto;padding:2rem 1.75rem;background:var(--surface);border:1px solid var(--edge);border-radius:10px;box-shadow:0 1px 3px rgb(16 24 40 / 10%)}
main>:last-child{margin-bottom:0}
@media (max-width:30rem){main{margin:0;min-height:100vh;border:0;border-radius:0;box-shadow:none}}
.brand{display:flex;align-items:center;gap:.6rem;font-weight:700;font-size:1.05rem;margin-bottom:1.5rem}
.brand svg rect{fill:var(--accent)}.brand svg path{stroke:var(--on-accent)}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .5rem}
h2{font-size:1.1rem;line-height:1.3;margin:1.75rem 0 .5rem}
a{color:var(--accent)}
a.button{flex:1;display:flex;align-items:center;justify-content:center;font-weight:600;min-height:2.75rem;padding:.5rem 1.25rem;border:2px solid var(--accent);border-radius:6px;background:var(--accent);color:var(--on-accent);text-decoration:none}
p,ul{margin:0 0 1rem}
li{margin-bottom:.5rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.95em}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{display:block;width:100%;font:inherit;color:inherit;background:var(--surface);padding:.55rem .7rem;border:1px solid var(--line);border-radius:6px}
input[aria-invalid="true"]{border:2px solid var(--danger)}
input[readonly]{background:var(--bg);color:var(--muted)}
.hint{color:var(--muted);font-size:.9rem;margin:.35rem 0 0}
.links{margin:1.25rem 0 0;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;justify-content:space-between}
button{font:inherit;font-weight:600;min-height:2.75rem;padding:.5rem 1.25rem;border:2px solid var(--accent);border-radius:6px;background:var(--accent);color:var(--on-accent);cursor:pointer}
button.secondary{background:transparent;color:var(--accent)}
form button{width:100%}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem}
.actions form{flex:1}
.alert{color:var(--danger);border-left:4px solid var(--danger);padding:.25rem .75rem;margin:1rem 0;font-weight:600}
.muted{color:var(--muted)}
.nowrap{white-space:nowrap}
fieldset{margin:0 0 1rem;padding:.25rem 1rem 1rem;border:1px solid var(--edge);border-radius:6px}
legend{font-weight:600;padding:0 .25rem}
.choice{display:flex;align-items:center;gap:.6rem;margin-top:.6rem}
.choice input{display:inline-block;flex:none;width:1.25rem;height:1.25rem;margin:0;padding:0;accent-color:var(--accent)}
.choice label{margin:0;font-weight:400}
.user-code{font:700 2rem/1.2 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.15em;text-align:center;padding:1rem;border:2px dashed var(--line);border-radius:6px}
`.trim();

/**
 * mnemo's mark, drawn inline: the pages load nothing. Written as HTML parses it (the parser
 * restores `viewBox`'s case for SVG), with every element closed.
 */
const BRAND = `<div class="brand"><svg viewbox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="7"></rect><path d="M8 22V11l5 6 3-4 3 4 5-6v11" fill="none" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"></path></svg>mnemo</div>`;

/**
 * The whole document around a page's content; `title` names the page before " · mnemo". A plain
 * template, not `html`, because the stylesheet is raw text that escaping would corrupt.
 */
export function layout(o: { title: string; body: Markup; script?: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(o.title)} · mnemo</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${BRAND}
${render(o.body)}
</main>${o.script === undefined ? '' : `\n<script>${o.script}</script>`}
</body>
</html>
`;
}
