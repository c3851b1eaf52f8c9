/**
 * `mnemo import FILE`: memories from a file into a store, 1,000 a request through the server's
 * import endpoint, as the person `mnemo login` signed in. Running it again on the same file
 * resumes it: what was imported already folds into the memory it made, and nothing doubles.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExportStore, ImportResponse } from '../memory/index.ts';
import { ApiError } from '../platform/errors.ts';
import type { ApiSession } from './api-session.ts';
import type { Args } from './args.ts';
import { type Command, type Outcome, onServer, PreconditionFailed } from './command.ts';
import { type FileEntry, type FileMemory, isUnreadable, readJsonLines } from './import-file.ts';
import { createImportProgress, type ImportProgress } from './import-progress.ts';
import { serverOf, urlOption } from './login.ts';

const FORMATS = ['jsonl', 'mem0'] as const;
type Format = (typeof FORMATS)[number];

/** The store named on the command line, for a file whose lines do not name theirs. */
type StoreOption =
  | { readonly user: string }
  | { readonly endUser: string }
  | { readonly project: string };

/** Tries of one request the server answered 503 (or that did not reach it). */
const TRIES = 5;
/** The most errors the text summary lists; --json lists every one. */
const LISTED = 20;

export const importMemories: Command = {
  path: ['import'],
  usage:
    'mnemo import FILE [--user ID | --end-user EXTERNAL_ID | --project ID] [--format jsonl|mem0] [--org ID] [--url URL]',
  summary:
    "add the memories of FILE (JSON lines: import items, mnemo export's lines, or an organization's export, whose lines name their stores; --format mem0: mem0's exports) to your store, a member's (--user), an end user's by the app's id (--end-user) or a pool (--project), 1,000 a request with a progress bar; run it again to resume: what is there already folds",
  options: ['user', 'end-user', 'project', 'format', 'org', 'url'],
  operand: 'FILE',
  prepare(args) {
    const file = args.operand ?? args.fail('FILE is required');
    const store = storeOption(args);
    const format: Format = args.choice('format', FORMATS) ?? 'jsonl';
    const orgId = args.uuid('org');
    const url = urlOption(args);
    return onServer(async (signal) => {
      const server = await serverOf(url, importMemories.usage);
      const { createApiSession } = await import('./api-session.ts');
      const session = createApiSession({
        publicUrl: server.publicUrl,
        accessToken: () => server.credentials.currentAccessToken(server.issuer),
        orgId,
        command: 'mnemo import',
      });
      const { entries, total, unit } = await openFile(file, format);
      const progress = createImportProgress(total);
      const tally: ImportTally = { created: 0, folded: 0, invalid: 0, errors: [] };
      try {
        await importEntries(session, entries, store, { tally, progress, signal });
      } catch (error) {
        const done = tally.created + tally.folded + tally.invalid;
        if (done === 0) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new PreconditionFailed(
          `${reason}; stopped after ${done.toLocaleString('en-US')} of the file's memories: run the same command again to go on (what was imported folds into its memory)`,
        );
      } finally {
        progress.stop();
      }
      return summary(file, tally, unit);
    });
  },
};

function storeOption(args: Args): StoreOption | undefined {
  const given = [
    ['user', args.uuid('user')],
    ['endUser', args.string('end-user')],
    ['project', args.uuid('project')],
  ].filter((pair): pair is [string, string] => pair[1] !== undefined);
  if (given.length > 1) args.fail('give one of --user, --end-user and --project');
  const [first] = given;
  if (!first) return undefined;
  const [kind, id] = first;
  if (kind === 'user') return { user: id };
  if (kind === 'endUser') return { endUser: id };
  return { project: id };
}

/** The file's memories, how many there are when known beforehand, and what a position names. */
interface OpenedFile {
  readonly entries: AsyncIterable<FileEntry> | Iterable<FileEntry>;
  readonly total: number | undefined;
  readonly unit: 'line' | 'record';
}

async function openFile(file: string, format: Format): Promise<OpenedFile> {
  try {
    await stat(file);
  } catch {
    throw new PreconditionFailed(`cannot read ${file}: no such file`);
  }
  if (format === 'mem0') {
    const { readMem0File } = await import('./mem0-import.ts');
    const { entries, unit, users } = await readMem0File(file);
    if (users.size > 1) {
      const named = [...users].slice(0, 3).join(', ');
      process.stderr.write(
        `mnemo: warning: the file holds the memories of ${users.size} mem0 users (${named}${users.size > 3 ? ', …' : ''}); they all go to one store: import each user's file on its own to keep them apart\n`,
      );
    }
    return { entries, total: entries.length, unit };
  }
  return {
    entries: readJsonLines(createReadStream(file, { encoding: 'utf8' })),
    total: await linesOf(file),
    unit: 'line',
  };
}

/** How many lines the file has: what the progress bar counts to. */
async function linesOf(file: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
    last = chunk.at(-1) ?? last;
  }
  return last === 10 ? lines : lines + 1;
}

/** What an import did, line by line where it went wrong. */
export interface ImportTally {
  created: number;
  folded: number;
  invalid: number;
  readonly errors: { line: number; error: string }[];
}

/**
 * Sends the file's memories a batch at a time, each batch one store's: the batches of one store
 * keep the file's order, so an item folds into the earlier lines it repeats, as in one import.
 */
async function importEntries(
  session: ApiSession,
  entries: AsyncIterable<FileEntry> | Iterable<FileEntry>,
  option: StoreOption | undefined,
  run: {
    readonly tally: ImportTally;
    readonly progress: ImportProgress;
    readonly signal: AbortSignal;
  },
): Promise<void> {
  const { tally, progress, signal } = run;
  // The API's batch limit, loaded with the part that sets it only when a file is imported.
  const { MAX_IMPORT_ITEMS } = await import('../memory/index.ts');
  const targets = createTargets(session);
  /** Stores of the file the server refused, by key: their other lines are not sent. */
  const refused = new Map<string, string>();
  let batch: FileMemory[] = [];
  let batchKey = '';

  const fail = (line: number, error: string) => {
    tally.invalid += 1;
    tally.errors.push({ line, error });
    progress.advance(1, tally);
  };

  async function flush() {
    const items = batch;
    batch = [];
    const [first] = items;
    if (!first) return;
    const store = first.store ?? option;
    let answer: ImportResponse;
    try {
      const body = { ...(await targets.bodyFor(store)), memories: items.map((m) => m.item) };
      answer = await send(session, body, progress, signal);
    } catch (error) {
      // A refusal of one store of an organization's export: its lines are not imported, the
      // other stores' are. Anything else (a store of the command line, the sign-in) ends it.
      if (!(error instanceof ApiError) || error.status === 401 || !first.store) throw error;
      refused.set(batchKey, error.message);
      for (const item of items) fail(item.line, `its store was refused: ${error.message}`);
      return;
    }
    answer.results.forEach((result, i) => {
      const line = items[i]?.line ?? 0;
      if (result.status === 'invalid') {
        tally.invalid += 1;
        tally.errors.push({ line, error: result.error ?? 'invalid' });
      } else {
        tally[result.status] += 1;
      }
    });
    progress.advance(items.length, tally);
  }

  for await (const entry of entries) {
    signal.throwIfAborted();
    if (isUnreadable(entry)) {
      fail(entry.line, entry.problem);
      continue;
    }
    if (entry.store && option) {
      throw new PreconditionFailed(
        `line ${entry.line} names its store (the file is an organization's export): import it without --user, --end-user or --project`,
      );
    }
    const key = entry.store ? JSON.stringify(entry.store) : '';
    const wasRefused = refused.get(key);
    if (wasRefused !== undefined) {
      fail(entry.line, `its store was refused: ${wasRefused}`);
      continue;
    }
    if (key !== batchKey || batch.length === MAX_IMPORT_ITEMS) await flush();
    batchKey = key;
    batch.push(entry);
  }
  await flush();
  // Lines no server saw are told as they are read, the others once their batch is answered.
  tally.errors.sort((a, b) => a.line - b.line);
}

/** The `user`/`project` of an import's body for a store, end users found by the app's id. */
function createTargets(session: ApiSession) {
  const endUsers = new Map<string, string>();

  async function endUserId(externalId: string): Promise<string> {
    const known = endUsers.get(externalId);
    if (known !== undefined) return known;
    const orgId = await session.organizationId();
    // Registered when this server does not know them yet; found when it does.
    const { endUser } = await session.get<{ endUser: { id: string } }>(
      `/api/v1/orgs/${orgId}/end-users/${encodeURIComponent(externalId)}`,
      { method: 'PUT', body: {} },
    );
    endUsers.set(externalId, endUser.id);
    return endUser.id;
  }

  return {
    async bodyFor(
      store: StoreOption | ExportStore | undefined,
    ): Promise<{ user?: string; project?: string }> {
      if (store === undefined) return {};
      if ('project' in store) return { project: store.project };
      if ('endUser' in store && store.endUser !== undefined) {
        return { user: await endUserId(store.endUser) };
      }
      return 'user' in store ? { user: store.user } : {};
    },
  };
}

/**
 * One import request, sent again when the server asks to wait (429: the rate limit or the
 * budget of imported memories; 503) for as long as its Retry-After says.
 */
async function send(
  session: ApiSession,
  body: Record<string, unknown>,
  progress: ImportProgress,
  signal: AbortSignal,
): Promise<ImportResponse> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await session.get<ImportResponse>('/api/v1/memory/import', { method: 'POST', body });
    } catch (error) {
      const waits = error instanceof ApiError && (error.status === 429 || error.status === 503);
      if (!waits || (error.status === 503 && tries >= TRIES)) throw error;
      const seconds = Number(error.headers['retry-after'] ?? 1);
      const wait = Number.isFinite(seconds) && seconds > 0 ? seconds : 1;
      progress.waiting(wait, error.message);
      await sleep(wait * 1000, undefined, { signal });
    }
  }
}

function summary(file: string, tally: ImportTally, unit: 'line' | 'record'): Outcome {
  const n = (count: number) => count.toLocaleString('en-US');
  const total = tally.created + tally.folded + tally.invalid;
  const lines = [
    `imported ${file}: ${n(tally.created)} created, ${n(tally.folded)} folded into memories already there, ${n(tally.invalid)} not imported (of ${n(total)})`,
    ...tally.errors.slice(0, LISTED).map(({ line, error }) => `  ${unit} ${line}: ${error}`),
  ];
  if (tally.errors.length > LISTED) {
    lines.push(`  … and ${n(tally.errors.length - LISTED)} more (--json lists every one)`);
  }
  return {
    json: {
      created: tally.created,
      folded: tally.folded,
      invalid: tally.invalid,
      errors: tally.errors,
    },
    text: lines.join('\n'),
  };
}
