/**
 * mem0's files as mnemo import items. mem0 has no export format of its own: its users keep what
 * its APIs return, and this reads each of those shapes:
 * - the open-source `Memory.get_all()`: `{"results": [record…], "relations"?: […]}` (v1.1 on;
 *   `relations` is the graph's, not memories), or the bare list of records (the v1.0 output);
 * - the platform's `MemoryClient.get_all()` (API v1 and v2): a list of records, `{"results": […]}`
 *   (with `total`, or `relations`), or a page `{"count", "next", "previous", "results"}`;
 * - the platform's export (`create_memory_export`, then `get_memory_export`), shaped by the JSON
 *   schema its caller gave: a schema with a list of memories, `{"memories": [record…]}`, or what
 *   `get_memory_export` answers around it, `{"data": …, "status"?}`;
 * - JSON Lines of any of those, a record (or a whole result) a line.
 * A record is `{"id", "memory", "user_id"?, "created_at", "updated_at", "categories"?, …}`; an
 * export's may call its text `text` or `content`.
 *
 * Pure: text in, items out. A file of JSON Lines is read a line at a time (readMem0Lines), so
 * memory use does not grow with it; one JSON document has to be read whole to be parsed.
 */
import { CATEGORIES, type Category, parseDateTime } from '../memory/index.ts';

/** An item of `POST /api/v1/memory/import` (ImportBody's `memories`). */
export interface ImportItem {
  readonly content: string;
  readonly category?: Category;
  /** RFC 3339 with an offset, to the millisecond at most. */
  readonly createdAt?: string;
}

/**
 * Where a record was: its line (JSON Lines, 1-based), its place in a list (1-based), or both
 * (a line that holds a whole get_all result).
 */
export type Mem0Position =
  | { readonly line: number; readonly record?: number }
  | { readonly record: number };

/** A memory to import, and the mem0 user it was kept for (a file may hold several). */
export interface Mem0Item {
  readonly at: Mem0Position;
  readonly item: ImportItem;
  readonly userId?: string;
}

/** A record not imported, and why. */
export interface Mem0Skipped {
  readonly at: Mem0Position;
  readonly reason: string;
}

export type Mem0Entry = Mem0Item | Mem0Skipped;

export interface Mem0Read {
  readonly items: Mem0Item[];
  readonly skipped: Mem0Skipped[];
}

/** How a file is laid out: JSON Lines, or one JSON document over any number of lines. */
export type Mem0Layout = 'json-lines' | 'document';

const EXPECTED =
  'expected one of mem0\'s: get_all\'s result ({"results": [...]}, a list of memories, or a page {"count", "next", "previous", "results"}), an export ({"memories": [...]}, or get_memory_export\'s {"data": ...} around it), or such memories one a line (JSON Lines)';

/** The file is none of mem0's shapes; the message says what it is and what was expected. */
export class NotMem0File extends Error {
  override readonly name = 'NotMem0File';
  readonly code = 'not_mem0_file';

  constructor(found: string) {
    super(`not a mem0 file: ${found}; ${EXPECTED}`);
  }
}

export const isSkipped = (entry: Mem0Entry): entry is Mem0Skipped => 'reason' in entry;

/** `line 3`, `record 2`, `line 3, record 2`: a position as a person reads it. */
export function positionText(at: Mem0Position): string {
  const parts: string[] = [];
  if ('line' in at) parts.push(`line ${at.line}`);
  if (at.record !== undefined) parts.push(`record ${at.record}`);
  return parts.join(', ');
}

/**
 * The layout of a file by its first line that is not blank: JSON Lines when that line is JSON
 * by itself (a document on one line gives the same items either way, its records placed by
 * line and record), else one document (whose first line, `{` or `[`, is not).
 */
export function mem0Layout(firstLine: string): Mem0Layout {
  try {
    JSON.parse(firstLine);
    return 'json-lines';
  } catch {
    return 'document';
  }
}

/**
 * A whole file read at once.
 *
 * @throws NotMem0File when it is not JSON, or JSON of another shape.
 * @example
 * const { items, skipped } = readMem0('{"results": [{"memory": "Likes tea", "user_id": "alex"}]}');
 * // items: [{ at: { line: 1, record: 1 }, item: { content: 'Likes tea' }, userId: 'alex' }]
 */
export function readMem0(text: string): Mem0Read {
  const lines = text.split(/\r?\n/);
  const first = lines.find((line) => line.trim() !== '');
  if (first === undefined) return { items: [], skipped: [] };
  const entries =
    mem0Layout(first) === 'document'
      ? documentEntries(text)
      : lines.flatMap((line, i) => readMem0Line(line, i + 1));
  const read: Mem0Read = { items: [], skipped: [] };
  for (const entry of entries) {
    if (isSkipped(entry)) read.skipped.push(entry);
    else read.items.push(entry);
  }
  return read;
}

/**
 * The entries of a file given line by line (`readline`'s lines of a stream), in order. JSON
 * Lines are read and given one line at a time; a document's lines are kept until its end, as
 * JSON has to be parsed whole.
 *
 * @throws NotMem0File (when it is iterated) as readMem0.
 */
export async function* readMem0Lines(
  lines: AsyncIterable<string> | Iterable<string>,
): AsyncGenerator<Mem0Entry> {
  let number = 0;
  let layout: Mem0Layout | undefined;
  const document: string[] = [];
  for await (const line of lines) {
    number += 1;
    if (layout === undefined && line.trim() !== '') layout = mem0Layout(line);
    if (layout === 'document') document.push(line);
    else yield* readMem0Line(line, number);
  }
  if (layout === 'document') yield* documentEntries(document.join('\n'));
}

/**
 * One line of JSON Lines (`line`: its number, 1-based): none for a blank line, one for a record
 * or a line that holds none, one per record for a line that holds a whole result.
 */
export function readMem0Line(text: string, line: number): Mem0Entry[] {
  if (text.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [{ at: { line }, reason: 'not JSON' }];
  }
  const found = recordsIn(value);
  if (found?.list) {
    return found.records.map((record, i) => entryOf(record, { line, record: i + 1 }));
  }
  // An object that holds no list is a record, usable or not (its entry says why not).
  if (isObject(value) && (found !== undefined || !holdsList(value))) {
    return [entryOf(value, { line })];
  }
  return [{ at: { line }, reason: `${describe(value)}, not a memory` }];
}

function documentEntries(text: string): Mem0Entry[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new NotMem0File(
      `neither one JSON document nor JSON Lines (its first line is not JSON by itself): ${oneLine((error as Error).message)}`,
    );
  }
  const found = recordsIn(value);
  if (found === undefined) throw new NotMem0File(describe(value));
  return found.records.map((record, i) => entryOf(record, { record: i + 1 }));
}

const CONTENT_FIELDS = ['memory', 'text', 'content'] as const;
/** Where the results of get_all and the export's schema keep their lists, in that order. */
const LIST_FIELDS = ['results', 'memories'] as const;

/**
 * The records a value holds: a list of them (one of the shapes above), one record, or none
 * (another shape). `data` (get_memory_export's answer) is looked into once.
 */
function recordsIn(
  value: unknown,
  inData = false,
): { readonly records: readonly unknown[]; readonly list: boolean } | undefined {
  if (Array.isArray(value)) return holdsRecords(value) ? { records: value, list: true } : undefined;
  if (!isObject(value)) return undefined;
  for (const field of LIST_FIELDS) {
    const list = value[field];
    if (Array.isArray(list)) return holdsRecords(list) ? { records: list, list: true } : undefined;
  }
  if (isRecord(value)) return { records: [value], list: false };
  if (!inData && value.data !== undefined) {
    const found = recordsIn(value.data, true);
    return found && { records: found.records, list: true };
  }
  return undefined;
}

const holdsList = (value: Record<string, unknown>) =>
  value.data !== undefined || LIST_FIELDS.some((field) => value[field] !== undefined);

/** A memory, or meant to be one: it has a field of the text, usable or not. */
const isRecord = (value: unknown) =>
  isObject(value) && CONTENT_FIELDS.some((field) => value[field] !== undefined);

/** Empty, or with a record among its items (the others are each reported): a list of memories. */
const holdsRecords = (list: readonly unknown[]) => list.length === 0 || list.some(isRecord);

const NO_MEMORIES = 'not memories (no memory, text or content)';

/** What a value of no known shape is, for its error. */
function describe(value: unknown): string {
  if (Array.isArray(value)) return `a list whose items are ${NO_MEMORIES}`;
  if (!isObject(value)) return `JSON ${value === null ? 'null' : `of type ${typeof value}`}`;
  if (typeof value.status === 'string' && value.data === undefined) {
    return `an export whose status is ${JSON.stringify(value.status)}, without its data: get it again once it is completed`;
  }
  const list = LIST_FIELDS.find((field) => Array.isArray(value[field]));
  if (list !== undefined) return `an object whose ${list} are ${NO_MEMORIES}`;
  const where = value.data === undefined ? value : value.data;
  const keys = isObject(where) ? Object.keys(where) : [];
  const named = keys.length === 0 ? 'no fields' : `fields ${shortList(keys)}`;
  return `an object with no list of memories (results, memories or data) and no memory (${named})`;
}

function entryOf(record: unknown, at: Mem0Position): Mem0Entry {
  if (!isObject(record)) return { at, reason: 'not a JSON object' };
  const content = contentOf(record);
  if ('reason' in content) return { at, reason: content.reason };
  const createdAt = createdAtOf(record.created_at);
  if (createdAt !== undefined && 'reason' in createdAt) return { at, reason: createdAt.reason };
  const category = categoryOf(record.categories ?? record.category);
  const item: ImportItem = {
    content: content.value,
    ...(category === undefined ? {} : { category }),
    ...(createdAt === undefined ? {} : { createdAt: createdAt.value }),
  };
  const userId = record.user_id;
  return typeof userId === 'string' && userId !== '' ? { at, item, userId } : { at, item };
}

type Read<T> = { readonly value: T } | { readonly reason: string };

/** `memory`, else `text`, else `content`: the first that holds text, trimmed. */
function contentOf(record: Record<string, unknown>): Read<string> {
  for (const field of CONTENT_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' && value.trim() !== '') return { value: value.trim() };
  }
  const present = CONTENT_FIELDS.find((field) => record[field] !== undefined);
  if (present === undefined) return { reason: 'no memory text (memory, text or content)' };
  return {
    reason: `its ${present} is ${typeof record[present] === 'string' ? 'empty' : 'not text'}`,
  };
}

/**
 * A date-time as mem0 writes it, Python's `isoformat()`: `T` or a space, seconds and a fraction
 * optional, and an offset (`Z`, `±HH:MM`, `±HHMM`) or none.
 */
const MEM0_TIME =
  /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(?::(\d{2})(?:[.,](\d+))?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * `created_at` as the import takes it: RFC 3339 with three fraction digits and an offset. The
 * open-source library writes timezone-aware times (US/Pacific in its early versions, UTC now),
 * the platform `Z` or an offset; a time without one (mem0 keeps a `created_at` its caller gave
 * as it was given) is read as UTC, the zone mem0 now writes its own in. A finer fraction is cut,
 * not rounded: mnemo keeps milliseconds, and a cut never moves a time into the next second, day
 * or year. None when there is none.
 */
function createdAtOf(value: unknown): Read<string> | undefined {
  if (value === undefined || value === null) return undefined;
  const parts = typeof value === 'string' ? MEM0_TIME.exec(value.trim()) : null;
  if (parts) {
    const [, date, hoursMinutes, seconds = '00', fraction = '', zone = 'Z'] = parts;
    const millis = fraction.slice(0, 3).padEnd(3, '0');
    const offset = zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone.toUpperCase();
    const time = `${date}T${hoursMinutes}:${seconds}.${millis}${offset}`;
    // The date must exist and the time be one of a day: 2024-02-30 or 25:00 is no time.
    if (parseDateTime(time) !== undefined) return { value: time };
  }
  return { reason: `its created_at is not a date-time: ${shortJson(value)}` };
}

/**
 * mem0's default categories whose meaning is one of mnemo's six. The others are topics, not
 * kinds of memory: `food`, `music`, `sports`, `travel` or `health` may hold a preference, a goal
 * or a constraint alike, and `milestones` or `misc` none of them; they are dropped, as an add
 * drops a category it does not know.
 */
const FROM_MEM0 = new Map<string, Category>([
  // Name, age, where they live: who the person is.
  ['personal_details', 'identity'],
  // Their job, employer, field: who they are at work, not a project of theirs.
  ['professional_details', 'identity'],
  ['user_preferences', 'preference'],
  // Family members, named and described: the person's relationships.
  ['family', 'relationship'],
]);
const SIX = new Set<string>(CATEGORIES);

/** The first of the categories that is one of the six (in any case) or means one. */
function categoryOf(value: unknown): Category | undefined {
  for (const name of Array.isArray(value) ? value : [value]) {
    if (typeof name !== 'string') continue;
    const key = name.trim().toLowerCase();
    if (SIX.has(key)) return key as Category;
    const mapped = FROM_MEM0.get(key);
    if (mapped !== undefined) return mapped;
  }
  return undefined;
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A parser's message on one line, and short: it may quote the text it failed on. */
function oneLine(message: string): string {
  const line = message.replace(/\s+/g, ' ');
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

const shortList = (names: readonly string[]) =>
  names.length > 6 ? `${names.slice(0, 6).join(', ')}, ...` : names.join(', ');

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
