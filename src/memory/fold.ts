import { createHash } from 'node:crypto';

/**
 * The fold rule of docs/design.md §3.1: Unicode NFKC, lower-cased without locale, runs of white space
 * collapsed, trimmed, and a trailing run of `.`, `!` or `?` removed.
 */
export function normalizeForFold(content: string): string {
  return content
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/[.!?]+$/u, '')
    .trimEnd();
}

/** What the store indexes: a fixed-size key, since content may be longer than an index entry. */
export function foldKey(content: string): string {
  return createHash('sha256').update(normalizeForFold(content)).digest('base64url');
}
