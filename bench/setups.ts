import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { namedCpuSeconds } from './cpu.ts';

/** A store made for one bench server, and how to remove it once that server has stopped. */
export interface BenchStoreLocation {
  /** `MNEMO_DATABASE_URL` for the server. */
  readonly url: string;
  dispose(): Promise<void>;
}

/**
 * What the scenarios run against: a store engine and how many server processes serve it. Every
 * scenario runs once per setup, with that setup's own floors; run.ts runs the setups of one
 * scenario back to back, so ratios between setups compare moments seconds apart.
 */
export interface Setup {
  /** Chosen by `--setups`: `postgres-2`. */
  readonly id: string;
  /** Names the setup in the output: `postgres, 2 processes`. */
  readonly name: string;
  /** Names it in column headers: `pg×2`. */
  readonly short: string;
  readonly engine: 'sqlite' | 'postgres';
  /**
   * How many server processes serve each store, all on one port (SO_REUSEPORT): the kernel
   * spreads the load generator's connections over them. Its floors run as many processes.
   */
  readonly processes: number;
  /**
   * How many servers of each kind run side by side, each of `processes` processes, each with
   * its own store and port; a load is split evenly among them and sent to all at once. 1 but in
   * a control: what several servers cost that share nothing.
   */
  readonly copies: number;
  /** A control runs only the scenarios a target between setups compares it on (targets.ts). */
  readonly control: boolean;
  /** What the output says about how the engine is run. */
  readonly notes: string;
  /**
   * Checks, before any load, that the engine can be used; throws a message saying what to do
   * when it cannot. Returns a line about the engine for the output, if there is one.
   */
  probe(): Promise<string | undefined>;
  /** A fresh, empty store for the bench server `server`; files may go under `dir`. */
  createStore(dir: string, server: string): Promise<BenchStoreLocation>;
  /**
   * CPU seconds used so far by the engine's processes that work for the bench, by pid
   * (PostgreSQL's: the backends of the bench's databases, and the background processes every
   * database shares); undefined for an engine inside the server process, or unreadable.
   */
  engineCpu(): Map<number, number> | undefined;
}

const sqliteOneProcess: Setup = {
  id: 'sqlite-1',
  name: 'sqlite, 1 process',
  short: 'sqlite×1',
  engine: 'sqlite',
  processes: 1,
  copies: 1,
  control: false,
  notes:
    'node:sqlite file store, WAL; group commit, each write acknowledged after an fsync that followed its commit',
  probe: async () => undefined,
  async createStore(dir, server) {
    const file = join(dir, `${server}.db`);
    return {
      url: `sqlite:${file}`,
      async dispose() {
        for (const suffix of ['', '-wal', '-shm', '-journal'])
          rmSync(`${file}${suffix}`, { force: true });
      },
    };
  },
  engineCpu: () => undefined,
};

/** The server bench databases are created on: a URL whose database the bench may connect to. */
export const POSTGRES_URL_VARIABLE = 'MNEMO_BENCH_POSTGRES_URL';
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function postgresAdminUrl(): string {
  return process.env[POSTGRES_URL_VARIABLE] || DEFAULT_POSTGRES_URL;
}

/** The URL without its password, for messages. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

async function onAdmin<R extends pg.QueryResultRow>(
  url: string,
  statement: string,
): Promise<pg.QueryResult<R>> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await client.query<R>(statement);
  } finally {
    await client.end();
  }
}

/** Starts the name of every database the bench creates. */
const DATABASE_PREFIX = 'mnemo_bench_';

/**
 * Sorts PostgreSQL's processes by their title (`postgres: 15/main: user database host(port)
 * state` for a backend): the bench's backends, and the postmaster and background processes
 * (writer, WAL writer, checkpointer), count for the bench; the backends of other databases, on a
 * server shared with other work, do not.
 */
function benchPostgresProcess(title: string): 'bench' | undefined {
  if (title.includes(` ${DATABASE_PREFIX}`)) return 'bench';
  const isBackend = /\(\d+\)|\[local\]/.test(title);
  return isBackend ? undefined : 'bench';
}

/** Whether the server runs on this machine, so its processes' CPU can be read from /proc. */
function isLocal(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return ['127.0.0.1', 'localhost', '[::1]', '::1', ''].includes(host);
  } catch {
    return false;
  }
}

/** What the bench checked of the server, read once for every PostgreSQL setup. */
let probed: Promise<string> | undefined;

function probePostgres(): Promise<string> {
  probed ??= (async () => {
    const url = postgresAdminUrl();
    let row: Record<string, string> | undefined;
    try {
      const result = await onAdmin<Record<string, string>>(
        url,
        `select current_setting('server_version') as version,
                current_setting('shared_buffers') as shared_buffers,
                current_setting('synchronous_commit') as synchronous_commit,
                current_setting('fsync') as fsync,
                current_setting('autovacuum') as autovacuum,
                current_setting('max_connections') as max_connections`,
      );
      row = result.rows[0];
    } catch (error) {
      throw new Error(
        `PostgreSQL at ${shown(url)} cannot be used: ${error instanceof Error ? error.message : String(error)}. ` +
          `Start it, or name another server with ${POSTGRES_URL_VARIABLE}=postgres://…, ` +
          'or measure SQLite alone: npm run bench -- --setups sqlite',
      );
    }
    const host = new URL(url).host;
    return (
      `PostgreSQL ${row?.version ?? '?'} at ${host}: shared_buffers ${row?.shared_buffers}, ` +
      `fsync ${row?.fsync}, synchronous_commit ${row?.synchronous_commit}, ` +
      `autovacuum ${row?.autovacuum}, max_connections ${row?.max_connections}`
    );
  })();
  return probed;
}

/** Databases created and not yet dropped, with how to drop each: for an interrupted run. */
const liveDatabases = new Map<string, () => Promise<void>>();

/**
 * Drops every PostgreSQL database the bench created and has not dropped yet (their servers may
 * still be connected: dropped WITH (FORCE)). For an interrupted run; never throws.
 */
export async function dropLeftoverStores(): Promise<void> {
  await Promise.allSettled([...liveDatabases.values()].map((drop) => drop()));
}

/** What every PostgreSQL setup does alike: probing the server, making stores, reading its CPU. */
const postgresEngine: Pick<Setup, 'engine' | 'probe' | 'createStore' | 'engineCpu'> = {
  engine: 'postgres',
  probe: probePostgres,
  async createStore(_dir, server) {
    const admin = postgresAdminUrl();
    const name = `${DATABASE_PREFIX}${randomBytes(6).toString('hex')}`;
    await onAdmin(admin, `create database ${name}`);
    // FORCE: a server that did not stop cleanly may leave its connections behind.
    const drop = async () => {
      liveDatabases.delete(name);
      await onAdmin(admin, `drop database if exists ${name} with (force)`);
    };
    liveDatabases.set(name, drop);
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async dispose() {
        await drop().catch((error) => {
          process.stderr.write(`bench: could not drop ${name} (${server}): ${String(error)}\n`);
        });
      },
    };
  },
  engineCpu() {
    if (!isLocal(postgresAdminUrl())) return undefined;
    const groups = namedCpuSeconds('postgres', benchPostgresProcess);
    return groups && (groups.get('bench') ?? new Map());
  },
};

const POSTGRES_NOTES =
  'a PostgreSQL database of its own per bench server, made from scratch and dropped after; ' +
  'pg.Pool of 10 per process; VACUUM (ANALYZE) and CHECKPOINT after seeding';

function postgresSetup(processes: number): Setup {
  const plural = processes === 1 ? 'process' : 'processes';
  const spread =
    processes === 1
      ? ''
      : `; ${processes} server processes on one database, listening on one port with SO_REUSEPORT: ` +
        "the kernel spreads autocannon's connections over them by a hash of each connection's " +
        'addresses and ports (no balancer process)';
  return {
    ...postgresEngine,
    id: `postgres-${processes}`,
    name: `postgres, ${processes} ${plural}`,
    short: `pg×${processes}`,
    processes,
    copies: 1,
    control: false,
    notes: `${POSTGRES_NOTES}${spread}`,
  };
}

/**
 * The control of `postgres-<copies>`: as many one-process servers, each on a database of its
 * own and a port of its own, loaded at once with the connections split evenly. The same
 * processes on the same cores, sharing no store: what `postgres-<copies>` costs beyond it is what
 * serving one store from several processes adds.
 */
function postgresApart(copies: number): Setup {
  return {
    ...postgresEngine,
    id: `postgres-${copies}-apart`,
    name: `postgres, ${copies} processes apart`,
    short: `pg×${copies} apart`,
    processes: 1,
    copies,
    control: true,
    notes:
      `${POSTGRES_NOTES}; the control of postgres, ${copies} processes: ${copies} one-process ` +
      'servers side by side, each on a database and port of its own, the connections split ' +
      'evenly among them: as many processes on the same cores, sharing nothing',
  };
}

/** The setups `npm run bench` measures, in the order each scenario runs them. */
export const SETUPS: readonly Setup[] = [
  sqliteOneProcess,
  postgresSetup(1),
  postgresSetup(2),
  postgresApart(2),
];
