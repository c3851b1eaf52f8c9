import { badRequest } from '../platform/errors.ts';
import { notAnInstant } from './usage.schemas.ts';

/** A half-open interval of time, [from, to), in milliseconds since the epoch. */
export interface UsageRange {
  readonly from: number;
  readonly to: number;
}

export const DAY_MS = 86_400_000;
/** The range when `from` is not given: this long before `to`. */
export const DEFAULT_RANGE_DAYS = 30;
/** The longest range one request may ask for (a leap year). */
export const MAX_RANGE_DAYS = 366;

const FROM_AFTER_TO = 'from must not be after to';
const TOO_LONG = `the range must not be longer than ${MAX_RANGE_DAYS} days`;

/** The rules of a range its schema cannot state, as an operation's description lists them. */
export const RANGE_RULES_NO_SCHEMA_STATES = {
  [notAnInstant('from')]: '`from` names a day or time that does not exist, such as 2026-02-30',
  [notAnInstant('to')]: '`to` names a day or time that does not exist',
  [FROM_AFTER_TO]: '`from` is later than `to`',
  [TOO_LONG]: '`to` is more than a leap year after `from`',
};

/** A date, or a date and time with its zone (RFC 3339's `full-date` / `date-time`). */
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2})))?$/i;

/**
 * The range a usage request names. Both bounds are instants and the range is half-open: a call
 * at exactly `from` is in it, a call at exactly `to` is not. A bound is a date `YYYY-MM-DD`,
 * meaning 00:00:00.000 UTC of that day (so `from=2026-11-01&to=2026-12-01` is November, and
 * consecutive ranges never overlap), or an RFC 3339 date-time with its zone (`Z` or `±hh:mm`);
 * digits past milliseconds are dropped. Without `to`, now; without `from`, 30 days before `to`.
 * `from` after `to` and ranges over 366 days are 400; `from` equal to `to` is an empty range.
 */
export function parseUsageRange(
  query: { readonly from?: string | undefined; readonly to?: string | undefined },
  now: number = Date.now(),
): UsageRange {
  const to = query.to === undefined ? now : parseBound(query.to, 'to');
  const from =
    query.from === undefined ? to - DEFAULT_RANGE_DAYS * DAY_MS : parseBound(query.from, 'from');
  if (from > to) throw badRequest(FROM_AFTER_TO);
  if (to - from > MAX_RANGE_DAYS * DAY_MS) throw badRequest(TOO_LONG);
  return { from, to };
}

function parseBound(text: string, name: 'from' | 'to'): number {
  const instant = parseInstant(text);
  if (instant === undefined) {
    throw badRequest(notAnInstant(name));
  }
  return instant;
}

/** Milliseconds since the epoch of a date or date-time, or undefined when it is not a real one. */
export function parseInstant(text: string): number | undefined {
  const match = INSTANT.exec(text);
  if (!match) return undefined;
  const numbers = match.map((part) => (part === undefined ? undefined : Number(part)));
  const [, year, month, day, hour = 0, minute = 0, second = 0] = numbers;
  if (year === undefined || month === undefined || day === undefined) return undefined;
  const [offsetHours = 0, offsetMinutes = 0] = numbers.slice(9, 11);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) {
    return undefined;
  }
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC: that one reads years 0–99 as 1900–1999.
  at.setUTCFullYear(year, month - 1, day);
  // Date rolls 2026-02-30 over into March: a day that does not exist comes back changed.
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) {
    return undefined;
  }
  // Digits past milliseconds are dropped.
  const ms = Number((match[7] ?? '').slice(0, 3).padEnd(3, '0'));
  const offset = (offsetHours * 60 + offsetMinutes) * 60_000 * (match[8] === '-' ? -1 : 1);
  return at.getTime() + ((hour * 60 + minute) * 60 + second) * 1000 + ms - offset;
}

/** `YYYY-MM-DD` of the UTC day with this number (days since the epoch). */
export function utcDay(dayNumber: number): string {
  return new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
}
