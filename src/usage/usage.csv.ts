import type { UsageRecordRow } from './usage.repository.ts';

/** The export's columns, in order. */
export const USAGE_CSV_COLUMNS = [
  'time',
  'user_id',
  'key_id',
  'model',
  'provider',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cost_usd',
  'latency_ms',
  'status',
  // Last, so the columns before it keep their places for readers of earlier exports.
  'reasoning_tokens',
  // `chat`, or `extraction` for a call that learned memories from one (docs/memory-chat.md).
  'kind',
] as const;

/**
 * RFC 4180 §2.6–2.7: "Fields containing line breaks (CRLF), double quotes, and commas should be
 * enclosed in double-quotes", and "a double-quote appearing inside a field must be escaped by
 * preceding it with another double quote".
 */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** RFC 4180 §2.1: "Each record is located on a separate line, delimited by a line break (CRLF)". */
export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** Integer micro-dollars as an exact decimal of dollars: 4800 → `0.004800`. */
export function microUsdDecimal(micro: number): string {
  return `${Math.trunc(micro / 1_000_000)}.${String(micro % 1_000_000).padStart(6, '0')}`;
}

export function usageCsvLine(row: UsageRecordRow): string {
  return csvLine([
    new Date(row.at).toISOString(),
    row.user_id,
    row.key_id,
    row.model,
    row.provider,
    String(row.prompt_tokens),
    String(row.completion_tokens),
    String(row.total_tokens),
    // An unknown cost (a model without a price) is an empty field, never 0.
    row.cost_micro_usd === null ? '' : microUsdDecimal(row.cost_micro_usd),
    String(row.latency_ms),
    String(row.status),
    String(row.reasoning_tokens),
    row.kind,
  ]);
}

/** The export as text chunks, a header line and then one chunk per page of calls. */
export async function* usageCsv(pages: AsyncIterable<readonly UsageRecordRow[]>) {
  yield csvLine(USAGE_CSV_COLUMNS);
  for await (const page of pages) yield page.map(usageCsvLine).join('');
}

/**
 * A range bound for a file name: the date when it is midnight UTC, else the ISO instant
 * without colons (which some file systems refuse).
 */
export function fileNameInstant(at: number): string {
  const iso = new Date(at).toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return iso.replace('.000Z', 'Z').replaceAll(':', '');
}
