import { type ApiClient, data, inOrg, retryAfterSeconds } from '../api/client.ts';
import type { ReadFile } from './import-file.ts';
import { addFields, type MemoryScope } from './memory-scope.ts';

/** What one import request takes (the API's limit). */
export const BATCH = 1000;

/** How far an import is: memories sent, and while the server asks for a pause, until when. */
export interface ImportProgress {
  readonly sent: number;
  /** `Date.now()` at which the refused batch goes again (a 429's Retry-After). */
  readonly resumesAt?: number;
}

export interface ImportOutcome {
  readonly created: number;
  readonly folded: number;
  /** Lines not imported, in the file's order: unreadable here, or refused by the server. */
  readonly invalid: readonly { line: number; error: string }[];
  /** Memories never sent: the import was stopped, or a failure ended it. */
  readonly unsent: number;
  /** The line of the first memory not sent, when some were not. */
  readonly unsentFrom?: number;
  readonly stopped: boolean;
  /** What ended the import early, if anything did. */
  readonly error?: unknown;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/**
 * Sends a file's memories with `POST /api/v1/memory/import`, 1,000 a request, in the file's order
 * and one request at a time, so that a memory folds into an earlier one of the file. A 429 (the
 * server's budget of imported memories a minute) is waited out for its Retry-After and the same
 * batch sent again, as often as it takes: `fetch` must hand 429s back rather than wait them out
 * itself, so that the wait can be shown. Aborting `signal` stops before the next request, or
 * during a wait; a request already sent is let finish, so that its outcome is known.
 */
export async function importInBatches(run: {
  api: ApiClient;
  fetch: (request: Request) => Promise<Response>;
  orgId: string;
  scope: MemoryScope;
  file: ReadFile;
  signal: AbortSignal;
  onProgress: (progress: ImportProgress) => void;
}): Promise<ImportOutcome> {
  const { memories, unreadable } = run.file;
  let created = 0;
  let folded = 0;
  const invalid = unreadable.map((u) => ({ line: u.line, error: u.problem }));
  let sent = 0;
  let error: unknown;
  try {
    while (sent < memories.length && !run.signal.aborted) {
      const batch = memories.slice(sent, sent + BATCH);
      const result = await run.api.POST('/api/v1/memory/import', {
        params: { header: inOrg(run.orgId) },
        body: { ...addFields(run.scope), memories: batch.map((m) => m.item) },
        fetch: run.fetch,
      });
      if (result.response.status === 429) {
        const ms = retryAfterSeconds(result.response) * 1000;
        run.onProgress({ sent, resumesAt: Date.now() + ms });
        await pause(ms, run.signal);
        run.onProgress({ sent });
        continue;
      }
      const answer = await data(Promise.resolve(result));
      answer.results.forEach((outcome, i) => {
        if (outcome.status === 'created') created += 1;
        else if (outcome.status === 'folded') folded += 1;
        else invalid.push({ line: batch[i]?.line ?? 0, error: outcome.error ?? 'not imported' });
      });
      sent += batch.length;
      run.onProgress({ sent });
    }
  } catch (failure) {
    error = failure;
  }
  invalid.sort((a, b) => a.line - b.line);
  const unsentFrom = memories[sent]?.line;
  return {
    created,
    folded,
    invalid,
    unsent: memories.length - sent,
    ...(unsentFrom === undefined ? {} : { unsentFrom }),
    stopped: error === undefined && sent < memories.length,
    ...(error === undefined ? {} : { error }),
  };
}
