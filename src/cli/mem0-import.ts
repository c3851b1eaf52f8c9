/**
 * mem0's files, read as memories to import (`mnemo import FILE --format mem0`). mem0 has no
 * export format of its own; people keep what its APIs return:
 * - the open-source `Memory.get_all()`: `{"results": [record…], "relations"?: […]}`, or, before
 *   its v1.1 output format, the list of records alone;
 * - the platform's `MemoryClient.get_all()`: a list of records (v1 and v2), or a page of them
 *   (`{"count", "next", "previous", "results"}`);
 * - the platform's memory export (`create_memory_export` / `get_memory_export`), shaped by the
 *   JSON schema its caller gave, as its documentation's example does: `{"memories": [record…]}`;
 * - any of those records one a line (JSON Lines).
 * A record is `{"id", "memory", "user_id", "created_at", "updated_at", "categories"?, …}`; an
 * export's may call the text `content` or `text`.
 */
import { readFile } from 'node:fs/promises';
import { CATEGORIES, type Category } from '../memory/memory.schemas.ts';
import { PreconditionFailed } from './command.ts';
import type { FileEntry } from './import-file.ts';

/**
 * mem0's default categories that mean one of mnemo's six, and nothing else: the others (sports,
 * travel, food, music, health, technology, hobbies, fashion, entertainment, milestones, misc)
 * are topics, not kinds of memory, and are dropped as the spec drops an unknown category.
 */
const CATEGORY_OF: Readonly<Record<string, Category>> = {
  personal_details: 'identity',
  professional_details: 'identity',
  user_preferences: 'preference',
  family: 'relationship',
};
const SIX = new Set<string>(CATEGORIES);

/** What a mem0 file holds, ready for the import. */
export interface Mem0File {
  readonly entries: readonly FileEntry[];
  /** `line` of an entry: a line of JSON Lines, or the position of a record in one document. */
  readonly unit: 'line' | 'record';
  /** mem0's `user_id`s of the records, when they name any. */
  readonly users: ReadonlySet<string>;
}

export async function readMem0File(path: string): Promise<Mem0File> {
  return readMem0(await readFile(path, 'utf8'));
}

export function readMem0(text: string): Mem0File {
  const users = new Set<string>();
  const toEntry = (position: number, record: unknown): FileEntry => {
    if (!isObject(record)) return { line: position, problem: 'not a JSON object' };
    if (typeof record.user_id === 'string') users.add(record.user_id);
    const content = [record.memory, record.text, record.content].find(
      (value) => typeof value === 'string',
    );
    if (content === undefined) {
      return { line: position, problem: 'no memory text (memory, text or content)' };
    }
    const category = categoryOf(record.categories ?? record.category);
    const createdAt = createdAtOf(record.created_at ?? record.createdAt);
    return {
      line: position,
      item: {
        content,
        ...(category === undefined ? {} : { category }),
        ...(createdAt === undefined ? {} : { createdAt }),
      },
    };
  };

  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    // Not one document: JSON Lines, a record a line.
    const entries: FileEntry[] = [];
    text.split(/\r?\n/).forEach((line, i) => {
      if (line.trim() === '') return;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        entries.push({ line: i + 1, problem: 'not JSON' });
        return;
      }
      entries.push(toEntry(i + 1, record));
    });
    if (entries.every((entry) => 'problem' in entry && entry.problem === 'not JSON')) {
      throw notMem0('it is neither JSON nor JSON Lines');
    }
    return { entries, unit: 'line', users };
  }
  const records = recordsOf(document);
  return { entries: records.map((record, i) => toEntry(i + 1, record)), unit: 'record', users };
}

function recordsOf(document: unknown): unknown[] {
  if (Array.isArray(document)) return document;
  if (isObject(document)) {
    for (const key of ['results', 'memories']) {
      const list = document[key];
      if (Array.isArray(list)) return list;
    }
    if (typeof document.memory === 'string') return [document];
  }
  throw notMem0('found no list of memories in it');
}

const notMem0 = (why: string) =>
  new PreconditionFailed(
    `not a mem0 file (${why}): expected get_all's results (a list, or {"results": [...]}), an export ({"memories": [...]}) or their records one a line`,
  );

/** The first of the record's categories that is, or means, one of the six. */
function categoryOf(value: unknown): Category | undefined {
  const names = Array.isArray(value) ? value : [value];
  for (const name of names) {
    if (typeof name !== 'string') continue;
    const key = name.trim().toLowerCase();
    if (SIX.has(key)) return key as Category;
    const mapped = CATEGORY_OF[key];
    if (mapped) return mapped;
  }
  return undefined;
}

// ISO 8601 as mem0 writes it: Python's isoformat(), with an offset (the open-source library's
// timezone-aware times) or without one (naive times, which mem0 takes as UTC), microseconds or not.
const ISO = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * mem0's `created_at` as the import takes it: RFC 3339 with an offset, milliseconds at most.
 * Anything else is passed on as it is, for the server to refuse that memory alone by its rule.
 */
function createdAtOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string') return String(value);
  const match = ISO.exec(value.trim());
  if (!match) return value;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const seconds = time?.length === 5 ? `${time}:00` : time;
  const millis = fraction.slice(0, 4);
  const offset = /^[+-]\d{4}$/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  return `${date}T${seconds}${millis}${offset.toUpperCase()}`;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
