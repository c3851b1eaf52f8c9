/**
 * Search quality on the labelled set: a fresh app on a fresh store of one engine, the set's
 * memories added through the HTTP API by their owners, then every query asked by its member
 * through GET /api/v1/memory/search, its answer read as the set's keys.
 */
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { ensureSigningKey } from '../../src/oauth/signing-keys.ts';
import { createFixtures } from '../../src/testing/build-test-app.ts';
import { benchEnv } from '../processes.ts';
import type { Setup } from '../setups.ts';
import type { HybridApp, HybridSearch } from './hybrid.ts';
import { type LabelledMemory, MEMORIES, QUERIES, USERS, type User } from './labelled-set.ts';
import type { Searched } from './metrics.ts';

/** Memories a search answers here: the default of the API, and the depth MRR is read at. */
export const SEARCH_LIMIT = 20;

export type SearchMode = 'lexical' | 'hybrid';

export interface QualityRun {
  readonly engine: Setup['engine'];
  readonly mode: SearchMode;
  readonly searched: readonly Searched[];
  /** How many answers said another `mode` than the one configured (hybrid fell back). */
  readonly otherModeAnswers: number;
}

interface Member {
  readonly token: string;
  readonly orgId: string;
}

class QualityFailed extends Error {
  override readonly name = 'QualityFailed';
}

async function call(origin: string, who: Member, method: string, path: string, body?: unknown) {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${who.token}`,
      'x-organization-id': who.orgId,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text };
}

async function add(origin: string, who: Member, memory: LabelledMemory): Promise<string> {
  const body = {
    content: memory.content,
    ...(memory.category === undefined ? {} : { category: memory.category }),
  };
  const { status, text } = await call(origin, who, 'POST', '/api/v1/memory', body);
  if (status !== 201) throw new QualityFailed(`adding ${memory.key}: ${status} ${text}`);
  return (JSON.parse(text) as { memory: { id: string } }).memory.id;
}

/**
 * Runs the labelled set on `setup`'s engine, lexical or with `hybrid`'s embeddings; the store
 * and app are made for the run and removed after it.
 */
export async function measureQuality(
  setup: Setup,
  hybrid: HybridSearch | undefined,
  dir: string,
  log: (line: string) => void,
): Promise<QualityRun> {
  const mode: SearchMode = hybrid ? 'hybrid' : 'lexical';
  const store = await setup.createStore(dir, `search-quality-${mode}`);
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
      await migrateToLatest(database.db);
      await ensureSigningKey(database.db);
      const fixtures = createFixtures(database, config);
      const orgId = await fixtures.org({ name: 'Northwind Labs' });
      const members = new Map<User, Member>();
      for (const user of USERS) {
        const { token } = await fixtures.user(orgId);
        members.set(user, { token, orgId });
      }
      const member = (user: User) => members.get(user) as Member;

      const app = await buildApp({
        ...embeddings?.deps,
        config,
        database,
        // Warnings (an embeddings outage, say) go with the progress lines, not into the report.
        logger: { level: 'warn', stream: process.stderr },
      });
      try {
        await app.listen({ host: '127.0.0.1', port: 0 });
        const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
        log(`search quality, ${setup.engine}, ${mode}: adding ${MEMORIES.length} memories`);
        const keyOf = new Map<string, string>();
        for (const memory of MEMORIES) {
          keyOf.set(await add(origin, member(memory.user), memory), memory.key);
        }
        if (embeddings) {
          log(`search quality, ${setup.engine}, ${mode}: waiting for every memory's vector`);
          await embeddings.settle(app);
        }
        log(`search quality, ${setup.engine}, ${mode}: ${QUERIES.length} queries`);
        const searched: Searched[] = [];
        let otherModeAnswers = 0;
        for (const query of QUERIES) {
          const path = `/api/v1/memory/search?q=${encodeURIComponent(query.q)}&limit=${SEARCH_LIMIT}`;
          const { status, text } = await call(origin, member(query.user), 'GET', path);
          if (status !== 200)
            throw new QualityFailed(`${query.user}: ${query.q}: ${status} ${text}`);
          const body = JSON.parse(text) as { memories: { id: string }[]; mode: string };
          if (body.mode !== mode) otherModeAnswers++;
          const ranked = body.memories.map((hit) => keyOf.get(hit.id) ?? `unknown ${hit.id}`);
          const stranger = ranked.find((key) => !key.startsWith(`${query.user}/`));
          if (stranger) {
            throw new QualityFailed(`${query.user}: ${query.q}: answered ${stranger}, not theirs`);
          }
          searched.push({ query, ranked });
        }
        return { engine: setup.engine, mode, searched, otherModeAnswers };
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
