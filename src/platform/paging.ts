import { badRequest } from './errors.ts';
import { parseUuid } from './uuid.ts';

/** Where a page starts in a list ordered by time then id, newest first: after this row. */
export interface KeysetPosition {
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly id: string;
}

export const invalidCursor = () => badRequest('invalid cursor');

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

/** The position a cursor of list `tag` stands for; 400 `invalid cursor` for anything else. */
export function decodeKeysetCursor(tag: string, cursor: string): KeysetPosition {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw invalidCursor();
  const [found, at, id, ...rest] = Buffer.from(cursor, 'base64url').toString().split(':');
  const uuid = parseUuid(id);
  if (found !== tag || at === undefined || !/^\d{1,15}$/.test(at) || !uuid || rest.length > 0) {
    throw invalidCursor();
  }
  return { at: Number(at), id: uuid };
}

/** A page size from the query: `fallback` when absent, else an integer from 1 to `max` (400). */
export function parsePageLimit(raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const limit = /^\d{1,4}$/.test(raw) ? Number(raw) : 0;
  if (limit < 1 || limit > max) throw badRequest(`limit must be an integer from 1 to ${max}`);
  return limit;
}
