import { blankName } from '../platform/errors.ts';

/** A name as stored: trimmed; white space alone is no name. */
export function cleanName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw blankName();
  return trimmed;
}

/** Lists people read are sorted by name (then id, so the order is the same on every store). */
export const byName = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  a.name.localeCompare(b.name, 'en') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
