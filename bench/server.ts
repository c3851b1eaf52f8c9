/**
 * The server under load, run as its own process by bench/run.ts:
 *
 *   node bench/server.ts '{"list":100,"post":0}'
 *
 * Builds the real app (`buildApp`) on the store named by MNEMO_DATABASE_URL, provisions one
 * organization and, for each named store, one member with a platform credential and that many
 * memories in their personal store; then listens on HOST:PORT and prints one JSON line
 * (`READY_PREFIX` + `BenchServerInfo`) on stdout. Configuration comes from the environment, as for `src/main.ts`.
 */
import { randomUUID } from 'node:crypto';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDatabase, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import type { NewMemoryRow } from '../src/db/tables.ts';
import { foldKey } from '../src/memory/fold.ts';
import { CATEGORIES } from '../src/memory/memory.schemas.ts';
import { ensureSigningKey } from '../src/oauth/signing-keys.ts';
import { createFixtures } from '../src/testing/build-test-app.ts';
import { memoryText } from './memory-text.ts';

/** A member's personal store, as provisioned. */
export interface BenchStore {
  readonly userId: string;
  readonly token: string;
  readonly size: number;
  /** Up to `SAMPLE_IDS` memory ids, spread evenly over the store in creation order. */
  readonly ids: readonly string[];
}

/** What the process prints once it listens. */
export interface BenchServerInfo {
  readonly port: number;
  readonly orgId: string;
  readonly stores: Readonly<Record<string, BenchStore>>;
}

/** Starts the line that carries `BenchServerInfo`, apart from any log line on stdout. */
export const READY_PREFIX = 'bench-server ';

const SAMPLE_IDS = 100;
/** Rows per INSERT: 10 columns each, far below SQLite's 32,766 bound parameters. */
const ROWS_PER_INSERT = 1000;
/** A credential that outlives any run. */
const TOKEN_TTL_SECONDS = 6 * 3600;

/**
 * Writes `size` memories into the member's personal store in one transaction, exactly as the
 * service's add path would leave them: one scope row whose counter is `size`, rows with
 * versions 1..size, fold keys from fold.ts, distinct increasing timestamps, no tombstones.
 */
async function seedMemories(
  database: Database,
  orgId: string,
  userId: string,
  store: string,
  size: number,
): Promise<string[]> {
  const ids: string[] = [];
  if (size === 0) return ids; // The first add creates the scope, as in production.
  const firstAt = Date.now() - size;
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
        const content = memoryText(store, index);
        ids.push(id);
        rows.push({
          id,
          scope_id: scopeId,
          contributor_id: userId,
          content,
          fold_key: foldKey(content),
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

async function main(): Promise<void> {
  const sizes = parseStores(process.argv[2]);
  const config = loadConfig();
  const database = createDatabase(config.databaseUrl);
  await migrateToLatest(database.db);
  await ensureSigningKey(database.db);
  const app = await buildApp({ config, database });

  const fixtures = createFixtures(database, config);
  const orgId = await fixtures.org({ name: 'Bench' });
  const stores: Record<string, BenchStore> = {};
  for (const [name, size] of Object.entries(sizes)) {
    const { id: userId } = await fixtures.user(orgId);
    const token = await fixtures.token(userId, TOKEN_TTL_SECONDS);
    const ids = await seedMemories(database, orgId, userId, name, size);
    stores[name] = { userId, token, size, ids: sample(ids, SAMPLE_IDS) };
  }

  // A clean exit on SIGTERM, so that `--cpu-prof` (BENCH_CPU_PROF) gets written.
  process.once('SIGTERM', () => {
    app
      .close()
      .then(() => database.close())
      .finally(() => process.exit(0));
  });
  await app.listen({ port: config.port, host: config.host });
  const info: BenchServerInfo = { port: config.port, orgId, stores };
  process.stdout.write(`${READY_PREFIX}${JSON.stringify(info)}\n`);
}

if (import.meta.main) await main();
