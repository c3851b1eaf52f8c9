/**
 * The days the usage page shows, kept in its URL so that links and the back button work:
 * `?range=7|30|90` is the last N UTC days, today included; `?from=YYYY-MM-DD&to=YYYY-MM-DD` is a
 * custom range with both days included. The API groups calls by UTC day and takes a half-open
 * range, so the page speaks in whole UTC days and asks for [first day, day after the last).
 */

export const PRESETS = [7, 30, 90] as const;
export type Preset = (typeof PRESETS)[number];
export const DEFAULT_PRESET: Preset = 30;
/** The API's longest range. */
export const MAX_DAYS = 366;

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface DayRange {
  /** The preset it is, or undefined for a custom range. */
  readonly preset: Preset | undefined;
  /** The first day, YYYY-MM-DD (UTC). */
  readonly first: string;
  /** The last day, included. */
  readonly last: string;
}

/** The UTC day of an instant, YYYY-MM-DD. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** 00:00 UTC of a day, in milliseconds since the epoch. */
export const startOf = (day: string) => Date.parse(`${day}T00:00:00Z`);

export const addDays = (day: string, days: number) => dayOf(startOf(day) + days * DAY_MS);

/** A real calendar day written YYYY-MM-DD (2026-02-30 is not one). */
export function isDay(text: string | null | undefined): text is string {
  return typeof text === 'string' && DATE.test(text) && dayOf(startOf(text)) === text;
}

/** How many days the range holds, both ends included. */
export const dayCount = (range: Pick<DayRange, 'first' | 'last'>) =>
  Math.round((startOf(range.last) - startOf(range.first)) / DAY_MS) + 1;

/** Every day of the range, in order. */
export function daysOf(range: Pick<DayRange, 'first' | 'last'>): string[] {
  const days: string[] = [];
  for (let day = range.first; day <= range.last; day = addDays(day, 1)) days.push(day);
  return days;
}

export function presetRange(preset: Preset, today: string): DayRange {
  return { preset, first: addDays(today, -(preset - 1)), last: today };
}

/**
 * Why two days do not make a range the API answers, or undefined when they do. Worded for the
 * "From" and "To" fields.
 */
export function customRangeProblem(first: string, last: string): string | undefined {
  if (!isDay(first)) return 'Enter the first day of the range.';
  if (!isDay(last)) return 'Enter the last day of the range.';
  if (last < first) return 'The last day cannot be before the first day.';
  if (dayCount({ first, last }) > MAX_DAYS) return `A range can hold at most ${MAX_DAYS} days.`;
  return undefined;
}

/** The range a URL's query names; anything it cannot read is the default preset. */
export function rangeOfSearch(search: URLSearchParams, today: string): DayRange {
  const first = search.get('from');
  const last = search.get('to');
  if (isDay(first) && isDay(last) && customRangeProblem(first, last) === undefined) {
    return { preset: undefined, first, last };
  }
  const preset = PRESETS.find((p) => String(p) === search.get('range')) ?? DEFAULT_PRESET;
  return presetRange(preset, today);
}

/** What a person picks: a preset (its days follow today), or two days of their own. */
export type RangeChoice =
  | { readonly preset: Preset }
  | { readonly first: string; readonly last: string };

/** The URL query of a choice. */
export function searchOfChoice(choice: RangeChoice): Record<string, string> {
  return 'preset' in choice
    ? { range: String(choice.preset) }
    : { from: choice.first, to: choice.last };
}

/** The API's half-open bounds of a range: its first day, and the day after its last. */
export function apiBounds(range: Pick<DayRange, 'first' | 'last'>): { from: string; to: string } {
  return { from: range.first, to: addDays(range.last, 1) };
}

/** Today, as a UTC day. */
export const todayUtc = () => dayOf(Date.now());
