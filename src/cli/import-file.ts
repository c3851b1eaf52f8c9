/**
 * What `mnemo import` reads from a file of JSON lines: each line a memory to import, as an import
 * item (`{"content", "category"?, "createdAt"?}`), a line of `mnemo export` (a MemoryItem), or a
 * line of an organization's export (`{"store", "memory"}`), which names its store.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ExportStore } from '../memory/index.ts';

/** A memory to import, from line `line` of the file (1-based); `store` when the line names it. */
export interface FileMemory {
  readonly line: number;
  readonly item: Readonly<Record<string, unknown>>;
  readonly store?: ExportStore;
}

/** A line that holds no memory to import, and why. */
export interface Unreadable {
  readonly line: number;
  readonly problem: string;
}

export type FileEntry = FileMemory | Unreadable;

export const isUnreadable = (entry: FileEntry): entry is Unreadable => 'problem' in entry;

/**
 * The memories of a JSON Lines stream, in order, one line at a time: memory use does not grow
 * with the file. Blank lines are passed over; a line that is no memory is an Unreadable.
 */
export async function* readJsonLines(input: Readable): AsyncGenerator<FileEntry> {
  let line = 0;
  for await (const text of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    line += 1;
    if (text.trim() === '') continue;
    yield entryOf(line, text);
  }
}

export function entryOf(line: number, text: string): FileEntry {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { line, problem: 'not JSON' };
  }
  if (!isObject(value)) return { line, problem: 'not a JSON object' };
  if (!('store' in value)) return { line, item: asImportItem(value) };
  const store = storeOf(value.store);
  if (store === undefined) {
    return {
      line,
      problem: 'its "store" is neither {"user": UUID, "endUser"?: string} nor {"project": UUID}',
    };
  }
  if (!isObject(value.memory)) return { line, problem: 'its "memory" is not a JSON object' };
  return { line, item: asImportItem(value.memory), store };
}

/**
 * The import item of a memory: an export's line carries its id and updatedAt besides, which a
 * new store gives anew. Any other field goes as it is, for the server to refuse by name.
 */
function asImportItem(memory: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, updatedAt: _updatedAt, ...item } = memory;
  return item;
}

function storeOf(value: unknown): ExportStore | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value).sort().join(',');
  if (keys === 'project' && typeof value.project === 'string') return { project: value.project };
  if (keys === 'user' && typeof value.user === 'string') return { user: value.user };
  if (
    keys === 'endUser,user' &&
    typeof value.user === 'string' &&
    typeof value.endUser === 'string'
  ) {
    return { user: value.user, endUser: value.endUser };
  }
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
