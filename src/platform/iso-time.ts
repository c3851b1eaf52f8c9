/**
 * `new Date(ms).toISOString()` without a Date, for the timestamps every memory answer prints
 * twice: allocating a Date and formatting it in the engine costs several times this. The day
 * is computed once per day (the last one is kept: a store's timestamps cluster), the time of
 * day by arithmetic. Outside years 0000–9999, where toISOString writes six-digit years, it
 * falls back to it.
 */
const MS_PER_DAY = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const FIRST = -62_167_219_200_000;
const LAST = 253_402_300_799_999;

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

let keptDay = Number.NaN;
let keptDate = '';

/** `YYYY-MM-DDT` of a day counted from 1970-01-01 (H. Hinnant's civil_from_days). */
function dateOfDay(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T`;
}

export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < FIRST || ms > LAST) return new Date(ms).toISOString();
  const days = Math.floor(ms / MS_PER_DAY);
  if (days !== keptDay) {
    keptDate = dateOfDay(days);
    keptDay = days;
  }
  let rest = ms - days * MS_PER_DAY;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${keptDate}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[millis]}Z`;
}
