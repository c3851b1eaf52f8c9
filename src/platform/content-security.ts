/**
 * What a page served by mnemo may do in a browser, as a `Content-Security-Policy`: load and call
 * only this origin, run only its own script files (no inline script, no eval), never be framed.
 * `data:` images are icons and charts drawn in the page.
 */
const SAME_ORIGIN = {
  'default-src': "'self'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data:",
  'font-src': "'self'",
  'connect-src': "'self'",
  'object-src': "'none'",
  'base-uri': "'none'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
} as const;

type Directive = keyof typeof SAME_ORIGIN;

/** The same-origin policy, with the sources of some directives given otherwise. */
export function sameOriginPolicy(changes: Partial<Record<Directive, string>> = {}): string {
  return Object.entries({ ...SAME_ORIGIN, ...changes })
    .map(([directive, sources]) => `${directive} ${sources}`)
    .join('; ');
}
