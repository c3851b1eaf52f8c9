import type { MemoryRow } from '../db/tables.ts';
import { isoTime } from '../platform/iso-time.ts';
import { CATEGORIES, type Category, type MemoryItem } from './memory.schemas.ts';

const known = new Set<unknown>(CATEGORIES);

/** The spec's category rule: a recognized value is kept, anything else (null included) is none. */
export function recognizedCategory(value: unknown): Category | null {
  return known.has(value) ? (value as Category) : null;
}

/**
 * The one flat shape of the interface: `category` absent (never null) when there is none, and
 * last when present, as the response serializer writes it (required fields first), so that
 * every endpoint prints a memory the same way.
 */
export function toMemoryItem(
  row: Pick<MemoryRow, 'id' | 'content' | 'category' | 'created_at' | 'updated_at'>,
): MemoryItem {
  const createdAt = isoTime(row.created_at);
  const updatedAt = isoTime(row.updated_at);
  return row.category === null
    ? { id: row.id, content: row.content, createdAt, updatedAt }
    : {
        id: row.id,
        content: row.content,
        createdAt,
        updatedAt,
        category: row.category as Category,
      };
}
