/**
 * mem0's files as `mnemo import --format mem0` takes them: read by mem0-format.ts (which says
 * what shapes it reads and how it maps them), placed as the import reports places.
 */
import { readFile } from 'node:fs/promises';
import { PreconditionFailed } from './command.ts';
import type { FileEntry } from './import-file.ts';
import { isSkipped, mem0Layout, NotMem0File, readMem0 } from './mem0-format.ts';

/** What a mem0 file holds, ready for the import. */
export interface Mem0File {
  readonly entries: readonly FileEntry[];
  /** What an entry's `line` counts: lines of JSON Lines, or records of one document. */
  readonly unit: 'line' | 'record';
  /** mem0's `user_id`s of the records, when they name any. */
  readonly users: ReadonlySet<string>;
}

export async function readMem0File(path: string): Promise<Mem0File> {
  const text = await readFile(path, 'utf8');
  let read: ReturnType<typeof readMem0>;
  try {
    read = readMem0(text);
  } catch (error) {
    if (error instanceof NotMem0File) throw new PreconditionFailed(error.message);
    throw error;
  }
  const first = text.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  const unit = mem0Layout(first) === 'document' ? 'record' : 'line';
  const place = (at: { line?: number; record?: number }) =>
    (unit === 'line' ? at.line : at.record) ?? at.line ?? at.record ?? 0;
  const entries = [...read.items, ...read.skipped].map(
    (entry): FileEntry =>
      isSkipped(entry)
        ? { line: place(entry.at), problem: entry.reason }
        : { line: place(entry.at), item: { ...entry.item } },
  );
  const users = new Set(read.items.flatMap((entry) => (entry.userId ? [entry.userId] : [])));
  return { entries, unit, users };
}
