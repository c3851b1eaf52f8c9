/**
 * What a quality run searches: a fresh app (`buildApp`, in the bench's process, listening on
 * loopback) on a fresh store of one engine, lexical or with hybrid.ts's embeddings, and the HTTP
 * calls the runs make of it. The store, the app and the embeddings are removed after the run.
 */
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { ensureSigningKey } from '../../src/credentials/signing-keys.ts';
import { createDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { createFixtures, type Fixtures } from '../../src/testing/build-test-app.ts';
import { benchEnv } from '../processes.ts';
import type { Setup } from '../setups.ts';
import type { HybridApp, HybridSearch } from './hybrid.ts';

/** Memories a search answers here: the default of the API, and the depth MRR is read at. */
export const SEARCH_LIMIT = 20;

export type SearchMode = 'lexical' | 'hybrid';

/** Who calls: a platform credential of a member, in one organization. */
export interface Member {
  readonly token: string;
  readonly orgId: string;
}

export interface QualityApp {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly fixtures: Fixtures;
  readonly mode: SearchMode;
  /** Resolves once every memory added so far has its vector; at once when lexical. */
  settle(): Promise<void>;
}

export class QualityFailed extends Error {
  override readonly name = 'QualityFailed';
}

/**
 * Runs `measure` against a fresh app on `setup`'s engine, lexical or with `hybrid`'s
 * embeddings; `name` names its store.
 */
export async function withQualityApp<R>(
  setup: Setup,
  hybrid: HybridSearch | undefined,
  dir: string,
  name: string,
  measure: (app: QualityApp) => Promise<R>,
): Promise<R> {
  const mode: SearchMode = hybrid ? 'hybrid' : 'lexical';
  const store = await setup.createStore(dir, `${name}-${mode}`);
  let embeddings: HybridApp | undefined;
  try {
    embeddings = await hybrid?.start();
    const config = loadConfig({
      ...benchEnv({ MNEMO_DATABASE_URL: store.url }),
      ...embeddings?.env,
    });
    const database = createDatabase(config.databaseUrl, {
      poolSize: config.databasePoolSize,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
    });
    try {
      await database.withoutTimeLimit(migrateToLatest);
      await ensureSigningKey(database.db);
      const app = await buildApp({
        ...embeddings?.deps,
        config,
        database,
        // Warnings (an embeddings outage, say) go with the progress lines, not into the report.
        logger: { level: 'warn', stream: process.stderr },
      });
      try {
        await app.listen({ host: '127.0.0.1', port: 0 });
        return await measure({
          origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
          fixtures: createFixtures(database, config),
          mode,
          settle: async () => embeddings?.settle(app),
        });
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
    }
  } finally {
    await embeddings?.stop();
    await store.dispose();
  }
}

/** One request as `who`, in their organization; the answer's status and text. */
export async function call(
  origin: string,
  who: Member,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${who.token}`,
      'x-organization-id': who.orgId,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
}

/** POST /api/v1/memory; the new memory's id. `what` names the memory in an error. */
export async function addMemory(
  origin: string,
  who: Member,
  body: { readonly content: string; readonly category?: string; readonly project?: string },
  what: string,
): Promise<string> {
  const { status, text } = await call(origin, who, 'POST', '/api/v1/memory', body);
  // 200 would be a fold into an equal memory: a set whose memories fold is a broken set.
  if (status !== 201) throw new QualityFailed(`adding ${what}: ${status} ${text}`);
  return (JSON.parse(text) as { memory: { id: string } }).memory.id;
}

/** GET /api/v1/memory/search: the ids answered, best first, and the mode the answer says. */
export async function searchMemories(
  origin: string,
  who: Member,
  q: string,
  pool: { readonly project?: string } = {},
): Promise<{ ids: string[]; mode: string }> {
  const params = new URLSearchParams({ q, limit: String(SEARCH_LIMIT) });
  if (pool.project !== undefined) params.set('project', pool.project);
  const { status, text } = await call(origin, who, 'GET', `/api/v1/memory/search?${params}`);
  if (status !== 200) throw new QualityFailed(`searching ${JSON.stringify(q)}: ${status} ${text}`);
  const body = JSON.parse(text) as { memories: { id: string }[]; mode: string };
  return { ids: body.memories.map((hit) => hit.id), mode: body.mode };
}

/**
 * `work` on every item, at most `limit` at once, started in the items' order; the results in
 * that order. The first failure is thrown once the work started has settled.
 */
export async function inFlight<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(
    Array.from({ length: Math.min(limit, items.length) }, worker),
  );
  const rejected = settled.find((s) => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results;
}

/** One run of a quality part on one engine and mode: its result, or why it failed. */
export type QualityOutcome<R> =
  | { readonly setup: Setup; readonly mode: SearchMode; readonly run: R }
  | { readonly setup: Setup; readonly mode: SearchMode; readonly error: string };

/**
 * `measure` on every setup, lexical and, once hybrid.ts configures it, hybrid: each on an app of
 * its own. A run that throws is an outcome with its error; the others still run.
 */
export async function everyMode<R>(
  setups: readonly Setup[],
  hybrid: HybridSearch | undefined,
  label: string,
  log: (line: string) => void,
  measure: (setup: Setup, hybrid: HybridSearch | undefined) => Promise<R>,
): Promise<QualityOutcome<R>[]> {
  const outcomes: QualityOutcome<R>[] = [];
  for (const setup of setups) {
    for (const configured of hybrid ? [undefined, hybrid] : [undefined]) {
      const mode: SearchMode = configured ? 'hybrid' : 'lexical';
      try {
        outcomes.push({ setup, mode, run: await measure(setup, configured) });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log(`${label}, ${setup.engine}, ${mode}: ${message}`);
        outcomes.push({ setup, mode, error: message });
      }
    }
  }
  return outcomes;
}
