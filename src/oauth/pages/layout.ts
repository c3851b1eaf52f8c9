import { escapeHtml, type Markup, render } from './html.ts';

/*
 * One stylesheet for every page, inline because the pages load nothing from anywhere (the CSP can
 * stay `default-src 'none'`). Colours meet WCAG AA in both schemes: text ≥ 4.5:1, borders and
 * the focus ring ≥ 3:1.
 */
const STYLE = `
:root{color-scheme:light dark;--fg:#1a1a1a;--muted:#595959;--bg:#fff;--line:#767676;--accent:#1d4ed8;--on-accent:#fff;--danger:#b91c1c}
@media (prefers-color-scheme:dark){:root{--fg:#f0f0f0;--muted:#b8b8b8;--bg:#141414;--line:#8c8c8c;--accent:#8fb0ff;--on-accent:#000;--danger:#ff9e9e}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:1.0625rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;overflow-wrap:anywhere}
main{max-width:28rem;margin:0 auto;padding:2.5rem 1rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem}
p,ul{margin:0 0 1rem}
li{margin-bottom:.5rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.95em}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{display:block;width:100%;font:inherit;color:inherit;background:var(--bg);padding:.5rem .625rem;border:1px solid var(--line);border-radius:.375rem}
input[aria-invalid="true"]{border:2px solid var(--danger)}
button{font:inherit;font-weight:600;min-height:2.75rem;padding:.5rem 1.25rem;border:2px solid var(--accent);border-radius:.375rem;background:var(--accent);color:var(--on-accent);cursor:pointer}
button.secondary{background:transparent;color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem}
.alert{color:var(--danger);border-left:4px solid var(--danger);padding:.25rem .75rem;margin:1rem 0;font-weight:600}
.muted{color:var(--muted)}
.user-code{font:700 2rem/1.2 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.15em;text-align:center;padding:1rem;border:2px dashed var(--line);border-radius:.375rem}
`.trim();

/**
 * The whole document around a page's content; `title` names the page before " · mnemo". A plain
 * template, not `html`, because the stylesheet is raw text that escaping would corrupt.
 */
export function layout(o: { title: string; body: Markup }): string {
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
${render(o.body)}
</main>
</body>
</html>
`;
}
