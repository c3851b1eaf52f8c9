import { Type } from 'typebox';
import { badRequest } from './errors.ts';
import { parseUuid } from './uuid.ts';

/** Where a page starts in a list ordered by time then id, newest first: after this row. */
export interface KeysetPosition {
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly id: string;
}

export const invalidCursor = () => badRequest('invalid cursor');

/** The rule of a page's cursor no schema can state, as an operation's description lists it. */
export const CURSOR_RULE_NO_SCHEMA_STATES = {
  'invalid cursor': '`cursor` is not one this list gave',
};

/**
 * A page's cursor: opaque base64url over the last row's time and id, tagged with the list it
 * belongs to (keyset paging: a page never repeats or skips a row however many are added
 * meanwhile). Nothing in one needs hiding or binding: a page is always read within the caller's
 * own organization, so a cursor edited or taken elsewhere only moves the start of a page the
 * caller may read anyway.
 *
 * @example
 * const cursor = encodeKeysetCursor('a1', { at: 1795390000000, id: '01a2…' });
 * decodeKeysetCursor('a1', cursor); // { at: 1795390000000, id: '01a2…' }
 */
export function encodeKeysetCursor(tag: string, position: KeysetPosition): string {
  return Buffer.from(`${tag}:${position.at}:${position.id}`).toString('base64url');
}

/** What a page's cursor looks like: base64url, as `encodeKeysetCursor` writes it. */
const CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,200}$';

/**
 * A `cursor` query parameter of a list paged by `encodeKeysetCursor`: its shape stated, and one
 * of that shape this server did not write answered as a cursor of no shape is, `invalid cursor`.
 */
export const PageCursor = (description: string) =>
  Type.String({ pattern: CURSOR_PATTERN, errorMessage: 'invalid cursor', description });

/** A `limit` query parameter: a page of 1 to `max` items, `fallback` when absent. */
export const PageLimit = (what: string, fallback: number, max: number) =>
  Type.Integer({
    minimum: 1,
    maximum: max,
    errorMessage: `limit must be an integer from 1 to ${max}`,
    description: `${what} per page, 1 to ${max} (default ${fallback})`,
    examples: [fallback],
  });

/** The position a cursor of list `tag` stands for; 400 `invalid cursor` for anything else. */
export function decodeKeysetCursor(tag: string, cursor: string): KeysetPosition {
  if (!new RegExp(CURSOR_PATTERN).test(cursor)) throw invalidCursor();
  const [found, at, id, ...rest] = Buffer.from(cursor, 'base64url').toString().split(':');
  const uuid = parseUuid(id);
  if (found !== tag || at === undefined || !/^\d{1,15}$/.test(at) || !uuid || rest.length > 0) {
    throw invalidCursor();
  }
  return { at: Number(at), id: uuid };
}
