import { badRequest } from '../platform/errors.ts';
import { parseUuid } from '../platform/uuid.ts';
import type { AuditPosition } from './audit.repository.ts';

const FORMAT = 'a1';

export const invalidCursor = () => badRequest('invalid cursor');

/**
 * The audit log's cursors: opaque base64url over the last entry's time and id (keyset paging:
 * a page never repeats or skips an entry however many are added meanwhile). Nothing in one
 * needs hiding or binding: a page is always read within the caller's own organization, so a
 * cursor edited or taken elsewhere can only move the start of a page the caller may read anyway.
 */
export function encodeAuditCursor(position: AuditPosition): string {
  return Buffer.from(`${FORMAT}:${position.at}:${position.id}`).toString('base64url');
}

/** The position a cursor stands for; throws 400 `invalid cursor` for anything else. */
export function decodeAuditCursor(cursor: string): AuditPosition {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw invalidCursor();
  const match = /^a1:(\d{1,15}):([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString());
  const id = parseUuid(match?.[2]);
  if (!match?.[1] || !id) throw invalidCursor();
  return { at: Number(match[1]), id };
}
