import { decodeKeysetCursor, encodeKeysetCursor } from '../platform/paging.ts';
import type { AuditPosition } from './audit.repository.ts';

const TAG = 'a1';

/** The audit log's cursors (platform/paging.ts): the last entry's time and id. */
export const encodeAuditCursor = (position: AuditPosition): string =>
  encodeKeysetCursor(TAG, position);

/** The position a cursor stands for; throws 400 `invalid cursor` for anything else. */
export const decodeAuditCursor = (cursor: string): AuditPosition => decodeKeysetCursor(TAG, cursor);
