import { type Fragment, html, render } from './html.ts';

/**
 * The text and HTML of one of mnemo's emails: a greeting line, what happened, one button (the
 * link, also written out for clients that show no HTML), and a closing note. Inline styles
 * only: mail clients drop style sheets. Every value is escaped (html.ts).
 */
export function emailBodies(o: {
  /** The first paragraph: what this email is about. */
  lead: string;
  action: { label: string; url: string };
  /** Said after the button: how long the link works, what to do if unexpected. */
  notes: readonly string[];
}): { text: string; html: string } {
  const text = [
    o.lead,
    '',
    `${o.action.label}: ${o.action.url}`,
    '',
    ...o.notes,
    '',
    '— mnemo',
  ].join('\n');
  const paragraph = (content: Fragment) =>
    html`<p style="margin:0 0 16px;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#16181d">${content}</p>`;
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin:0;padding:24px;background:#f6f7f9">
<div style="max-width:520px;margin:0 auto;padding:28px;background:#ffffff;border:1px solid #dfe2e8;border-radius:10px">
<p style="margin:0 0 20px;font:700 18px system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#4338ca">mnemo</p>
${paragraph(o.lead)}
<p style="margin:24px 0"><a href="${o.action.url}" style="display:inline-block;padding:12px 20px;background:#4338ca;color:#ffffff;border-radius:6px;font:600 16px system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;text-decoration:none">${o.action.label}</a></p>
${paragraph(html`Or open this link: <a href="${o.action.url}" style="color:#4338ca;word-break:break-all">${o.action.url}</a>`)}
${o.notes.map((note) => paragraph(note))}
</div>
</body></html>`;
  return { text, html: render(body) };
}

/** A date as an email says it: `28 November 2026, 14:05 UTC`. */
export function emailDate(ms: number): string {
  return `${new Intl.DateTimeFormat('en-GB', {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(ms)} UTC`;
}
