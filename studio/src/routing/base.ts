/** The studio's path under the origin, as Vite was told (`base`), without the trailing slash. */
export const BASENAME = import.meta.env.BASE_URL.replace(/\/$/, '');

/** An absolute URL of a studio page: `appUrl('/memories')`. */
export const appUrl = (path: string) => `${location.origin}${BASENAME}${path}`;

/** The studio page the browser shows now, as a path inside the app (with its query). */
export function currentAppPath(): string {
  const path = location.pathname.startsWith(BASENAME)
    ? location.pathname.slice(BASENAME.length)
    : location.pathname;
  return `${path || '/'}${location.search}`;
}
