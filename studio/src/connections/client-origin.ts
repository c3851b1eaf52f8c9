/**
 * Where a connected app comes from, read from its client id as the consent page reads it
 * (src/oauth/interactions.routes.ts): a client ID metadata document's id is its https URL, whose
 * host vouches for the name (anyone can write any name); any other id is a client registered
 * with mnemo, by an operator or by itself.
 */
export type ClientOrigin =
  | { readonly kind: 'published'; readonly host: string }
  | { readonly kind: 'registered' };

export function clientOrigin(clientId: string): ClientOrigin {
  return URL.canParse(clientId)
    ? { kind: 'published', host: new URL(clientId).host }
    : { kind: 'registered' };
}

/** The initial of the app's name, for its tile: the first letter or digit, upper-cased. */
export function initialOf(name: string): string {
  const letter = name.match(/[\p{L}\p{N}]/u)?.[0];
  return letter ? letter.toLocaleUpperCase() : '?';
}

/** How many tints an app's tile can take (connected-apps.css, `.tone-0` to `.tone-5`). */
const TONES = 6;

/**
 * The tint of an app's tile, the same for the same client everywhere, so that apps whose names
 * begin alike still look apart.
 */
export function toneOf(clientId: string): number {
  let hash = 0;
  for (const char of clientId) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return hash % TONES;
}
