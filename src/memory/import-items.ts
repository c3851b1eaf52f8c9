import { contentProblem } from './memory.errors.ts';
import type { Category } from './memory.schemas.ts';
import { recognizedCategory } from './memory-item.ts';

/** An item of an import as checked alone: what to add, or why it cannot be. */
export type CheckedItem =
  | {
      readonly ok: true;
      readonly content: string;
      readonly category: Category | null;
      /** Milliseconds; undefined: the import's own time. */
      readonly createdAt: number | undefined;
    }
  | { readonly ok: false; readonly error: string };

const FIELDS = new Set(['content', 'category', 'createdAt']);

/**
 * RFC 3339's date-time (ISO 8601's profile of the internet): a date, `T`, a time to the second
 * with any fraction, and a UTC offset, which must be there (a time without one names no instant).
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The instant `value` names, in milliseconds (a finer fraction cut), or undefined. */
export function parseDateTime(value: string): number | undefined {
  const parts = DATE_TIME.exec(value);
  if (!parts) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', offset = 'Z'] = parts;
  // Date.parse takes 30 February for 1 March: the date must exist as written.
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (
    date.getUTCFullYear() !== Number(year) ||
    date.getUTCMonth() !== Number(month) - 1 ||
    date.getUTCDate() !== Number(day) ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59
  ) {
    return undefined;
  }
  // `.` and milliseconds: a finer fraction is cut, a coarser one filled.
  const millis = (fraction || '.').slice(0, 4).padEnd(4, '0');
  const iso = `${year}-${month}-${day}T${hour}:${minute}:${second}${millis}${offset.toUpperCase()}`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * One item of an import checked as an add would check it: `content` as an add's, `category`
 * kept when it is one of the six (anything else, none, without an error, as the spec has it),
 * `createdAt` an RFC 3339 date-time with its offset, from 1970 on and not after `now`; no other
 * field.
 */
export function checkImportItem(
  item: unknown,
  options: { readonly maxContentChars: number; readonly now: number },
): CheckedItem {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return { ok: false, error: 'an item must be an object with content' };
  }
  const fields = item as Record<string, unknown>;
  const unknown = Object.keys(fields).find((name) => !FIELDS.has(name));
  if (unknown !== undefined) return { ok: false, error: `unknown field: ${unknown}` };
  const { content, category, createdAt } = fields;
  if (typeof content !== 'string') {
    return {
      ok: false,
      error: content === undefined ? 'content is required' : 'content must be a string',
    };
  }
  const problem = contentProblem(content, options.maxContentChars);
  if (problem !== undefined) return { ok: false, error: problem };
  let created: number | undefined;
  if (createdAt !== undefined) {
    created = typeof createdAt === 'string' ? parseDateTime(createdAt) : undefined;
    if (created === undefined) {
      return {
        ok: false,
        error: 'createdAt must be a date-time with its offset, like 2026-11-22T09:30:00.000Z',
      };
    }
    if (created < 0) return { ok: false, error: 'createdAt must not be before 1970' };
    if (created > options.now) return { ok: false, error: 'createdAt must not be in the future' };
  }
  return { ok: true, content, category: recognizedCategory(category), createdAt: created };
}
