/**
 * A file chosen for import, read in the browser: JSON Lines (an import item, or a line of an
 * export, a line) or one JSON array of them. What goes to `POST /api/v1/memory/import` is each
 * memory as written, but an export's id and updatedAt, which stay behind as the store
 * gives new ones. The server judges each memory (an unknown field included); here only what is no
 * memory at all is set aside.
 */

/** A memory to import, from line `line` of the file (an array's item: its position). */
export interface FileMemory {
  readonly line: number;
  readonly item: { readonly content: unknown; readonly [field: string]: unknown };
}

export interface Unreadable {
  readonly line: number;
  readonly problem: string;
}

export interface ReadFile {
  readonly memories: readonly FileMemory[];
  readonly unreadable: readonly Unreadable[];
}

export function readImportFile(text: string): ReadFile {
  const memories: FileMemory[] = [];
  const unreadable: Unreadable[] = [];
  const take = (line: number, value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      unreadable.push({ line, problem: 'not a JSON object' });
      return;
    }
    const record = value as Record<string, unknown>;
    // An organization's export wraps each memory with its store: this page imports into one.
    const memory = (
      'memory' in record && typeof record.memory === 'object' && record.memory !== null
        ? record.memory
        : record
    ) as Record<string, unknown>;
    if (!('content' in memory)) {
      unreadable.push({ line, problem: 'no "content"' });
      return;
    }
    // Any other field goes as it is, for the server to refuse that memory by name.
    const { id: _id, updatedAt: _updatedAt, ...item } = memory;
    memories.push({ line, item: item as FileMemory['item'] });
  };

  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let list: unknown;
    try {
      list = JSON.parse(trimmed);
    } catch {
      return { memories, unreadable: [{ line: 1, problem: 'not JSON' }] };
    }
    if (Array.isArray(list)) {
      for (const [i, value] of list.entries()) take(i + 1, value);
      return { memories, unreadable };
    }
  }
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      unreadable.push({ line: i + 1, problem: 'not JSON' });
      return;
    }
    take(i + 1, value);
  });
  return { memories, unreadable };
}
