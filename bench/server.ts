/**
 * The server under load, run by bench/run.ts as processes of its own, in two steps:
 *
 *   node bench/server.ts seed '{"list":100,"post":0}' ['{"texts":"search-corpus"}']   # provisions the store, prints it, exits
 *   node bench/server.ts serve [--reuse-port]           # serves it until SIGTERM
 *
 * `seed` migrates the store named by MNEMO_DATABASE_URL, provisions one organization and, for
 * each named store, one member with a platform credential and that many memories in their
 * personal store, prints one JSON line (`SEEDED_PREFIX` + `BenchSeed`) on stdout and exits. Its
 * PORT must be the one the servers will listen on: the credentials name the service's URL. The
 * optional second argument (`SeedOptions`) chooses the memories' texts and can leave the store
 * without its search index.
 *
 * `serve` builds the real app (`buildApp`) on that store, listens on HOST:PORT and prints
 * `SERVING_PREFIX` + `{"port":…,"pid":…}`. Several `serve` processes may serve one PostgreSQL
 * store; with `--reuse-port` they all listen on the same port (serving.ts). Configuration comes
 * from the environment, as for `src/main.ts`.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { ensureSigningKey } from '../src/credentials/signing-keys.ts';
import { createDatabase, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import type { NewMemoryRow } from '../src/db/tables.ts';
import { foldKey } from '../src/memory/fold.ts';
import { CATEGORIES } from '../src/memory/memory.schemas.ts';
import { indexTerms } from '../src/platform/search-analyzer.ts';
import { createFixtures } from '../src/testing/build-test-app.ts';
import { memoryText } from './memory-text.ts';
import { corpusTexts } from './search/corpus.ts';
import { dropSearchIndex } from './search/unindexed.ts';
import { countRequests, listenOptions } from './serving.ts';

/** A member's personal store, as provisioned. */
export interface BenchStore {
  readonly userId: string;
  readonly token: string;
  readonly size: number;
  /** Up to `SAMPLE_IDS` memory ids, spread evenly over the store in creation order. */
  readonly ids: readonly string[];
}

/** What `seed` provisioned, as it prints it. */
export interface BenchSeed {
  readonly orgId: string;
  readonly stores: Readonly<Record<string, BenchStore>>;
}

/** What `serve` prints once it listens. */
export interface BenchServing {
  readonly port: number;
  readonly pid: number;
}

/** How `seed` fills a store beyond its sizes. */
export interface SeedOptions {
  /**
   * The memories' texts: `topics`, short lines about a few topics (memory-text.ts); or
   * `search-corpus`, varied sentences in several languages to search in (search/corpus.ts).
   */
  readonly texts?: 'topics' | 'search-corpus';
  /** `false`: the store is left without its search index, to measure what the index costs. */
  readonly searchIndex?: boolean;
}

/** Start the lines that carry `BenchSeed` and `BenchServing`, apart from any log line on stdout. */
export const SEEDED_PREFIX = 'bench-seeded ';
export const SERVING_PREFIX = 'bench-serving ';

const SAMPLE_IDS = 100;
/** Rows per INSERT: 10 columns each, far below SQLite's 32,766 bound parameters. */
const ROWS_PER_INSERT = 1000;
/** A credential that outlives any run. */
const TOKEN_TTL_SECONDS = 6 * 3600;

/**
 * Writes `size` memories into the member's personal store in one transaction, exactly as the
 * service's add path would leave them: one scope row whose counter is `size`, rows with
 * versions 1..size, fold keys from fold.ts, search terms from the analyzer, distinct increasing
 * timestamps, no tombstones.
 */
async function seedMemories(
  database: Database,
  orgId: string,
  userId: string,
  store: string,
  size: number,
  texts: SeedOptions['texts'],
): Promise<string[]> {
  const ids: string[] = [];
  if (size === 0) return ids; // The first add creates the scope, as in production.
  const firstAt = Date.now() - size;
  const corpus = texts === 'search-corpus' ? corpusTexts(size) : undefined;
  await database.write(async (trx) => {
    const scopeId = randomUUID();
    await trx
      .insertInto('scopes')
      .values({ id: scopeId, org_id: orgId, kind: 'user', owner_id: userId, version: size })
      .execute();
    for (let start = 0; start < size; start += ROWS_PER_INSERT) {
      const rows: NewMemoryRow[] = [];
      for (let index = start; index < Math.min(size, start + ROWS_PER_INSERT); index++) {
        const id = randomUUID();
        const content = corpus?.[index] ?? memoryText(store, index);
        ids.push(id);
        rows.push({
          id,
          scope_id: scopeId,
          contributor_id: userId,
          content,
          fold_key: foldKey(content),
          search_terms: indexTerms(content),
          // Two in three memories carry a category, as the extraction prompts tend to give.
          category: index % 3 === 2 ? null : (CATEGORIES[index % CATEGORIES.length] ?? null),
          created_at: firstAt + index,
          updated_at: firstAt + index,
          version: index + 1,
          deleted_at: null,
        });
      }
      await trx.insertInto('memories').values(rows).execute();
    }
  });
  return ids;
}

function sample(ids: readonly string[], count: number): string[] {
  if (ids.length <= count) return [...ids];
  return Array.from({ length: count }, (_, i) => ids[Math.floor((i * ids.length) / count)] ?? '');
}

function parseSeedOptions(arg: string | undefined): SeedOptions {
  const options: unknown = JSON.parse(arg ?? '{}');
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new Error('bench server: seed options must be a JSON object');
  }
  const { texts, searchIndex, ...rest } = options as Record<string, unknown>;
  if (
    Object.keys(rest).length > 0 ||
    ![undefined, 'topics', 'search-corpus'].includes(texts as string) ||
    ![undefined, true, false].includes(searchIndex as boolean)
  ) {
    throw new Error(`bench server: unknown seed options ${arg}`);
  }
  return options as SeedOptions;
}

function parseStores(arg: string | undefined): Record<string, number> {
  const stores: unknown = JSON.parse(arg ?? '{}');
  if (typeof stores !== 'object' || stores === null || Array.isArray(stores)) {
    throw new Error('bench server: argument must be a JSON object {"store": size, …}');
  }
  for (const [name, size] of Object.entries(stores)) {
    if (!Number.isSafeInteger(size) || (size as number) < 0) {
      throw new Error(`bench server: store ${name} needs a size ≥ 0, got ${String(size)}`);
    }
  }
  return stores as Record<string, number>;
}

/**
 * PostgreSQL: statistics and the visibility map for the seeded tables, and their pages written
 * out, as autovacuum and the checkpointer would have left a store that has been up a while, so
 * neither runs in the middle of a measurement (the bench's server may have autovacuum off).
 */
async function settlePostgres(database: Database): Promise<void> {
  await sql`vacuum (analyze)`.execute(database.db);
  // A superuser's right (or pg_checkpoint's); without it the checkpointer does it later.
  await sql`checkpoint`.execute(database.db).catch(() => undefined);
}

async function seed(arg: string | undefined, optionsArg: string | undefined): Promise<void> {
  const sizes = parseStores(arg);
  const options = parseSeedOptions(optionsArg);
  const config = loadConfig();
  const database = createDatabase(config.databaseUrl);
  await database.withoutTimeLimit(migrateToLatest);
  if (options.searchIndex === false) await dropSearchIndex(database);
  await ensureSigningKey(database.db);

  const fixtures = createFixtures(database, config);
  const orgId = await fixtures.org({ name: 'Bench' });
  const stores: Record<string, BenchStore> = {};
  for (const [name, size] of Object.entries(sizes)) {
    const { id: userId } = await fixtures.user(orgId);
    const token = await fixtures.token(userId, TOKEN_TTL_SECONDS);
    const ids = await seedMemories(database, orgId, userId, name, size, options.texts);
    stores[name] = { userId, token, size, ids: sample(ids, SAMPLE_IDS) };
  }
  if (database.dialect === 'postgres') await settlePostgres(database);
  await database.sync();
  await database.close();
  const seeded: BenchSeed = { orgId, stores };
  process.stdout.write(`${SEEDED_PREFIX}${JSON.stringify(seeded)}\n`);
}

async function serve(flags: readonly string[]): Promise<void> {
  const unknown = flags.filter((flag) => flag !== '--reuse-port');
  if (unknown.length > 0) throw new Error(`bench server: unknown option ${unknown.join(' ')}`);
  const config = loadConfig();
  const database = createDatabase(config.databaseUrl);
  const app = await buildApp({ config, database });
  // The store's secrets may have been written outside `write`: on disk before use, as main.ts.
  await database.sync();
  countRequests(app.server);

  // A clean exit on SIGTERM, so that `--cpu-prof` (BENCH_CPU_PROF) gets written.
  process.once('SIGTERM', () => {
    app
      .close()
      .then(() => database.close())
      .finally(() => process.exit(0));
  });
  await app.listen(listenOptions(config, flags.includes('--reuse-port')));
  const serving: BenchServing = { port: config.port, pid: process.pid };
  process.stdout.write(`${SERVING_PREFIX}${JSON.stringify(serving)}\n`);
}

async function main(): Promise<void> {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === 'seed') await seed(rest[0], rest[1]);
  else if (mode === 'serve') await serve(rest);
  else
    throw new Error(
      'usage: server.ts seed \'{"store": size, …}\' [\'{"texts": …, "searchIndex": false}\'] | server.ts serve [--reuse-port]',
    );
}

if (import.meta.main) await main();
