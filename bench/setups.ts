import { rmSync } from 'node:fs';
import { join } from 'node:path';

/** A store made for one bench server, and how to remove it once that server has stopped. */
export interface BenchStoreLocation {
  /** `MNEMO_DATABASE_URL` for the server. */
  readonly url: string;
  dispose(): Promise<void>;
}

/**
 * What the scenarios run against: a store engine and how many server processes serve it. Every
 * scenario runs once per setup, with its own floor, so each setup's ratios come from one
 * stretch of time on the machine.
 */
export interface Setup {
  /** Names the setup in the output: `sqlite, 1 process`. */
  readonly name: string;
  readonly engine: 'sqlite';
  /**
   * bench/server.ts seeds the store it serves, so a setup with several processes needs the
   * seeding moved apart from serving first.
   */
  readonly processes: 1;
  /** What the output says about how the engine is run. */
  readonly notes: string;
  /** A fresh, empty store for the bench server `server`; files may go under `dir`. */
  createStore(dir: string, server: string): Promise<BenchStoreLocation>;
}

const sqliteOneProcess: Setup = {
  name: 'sqlite, 1 process',
  engine: 'sqlite',
  processes: 1,
  notes:
    'node:sqlite file store, WAL; group commit, each write acknowledged after an fsync that followed its commit',
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
};

/** The setups `npm run bench` measures, each in turn. */
export const SETUPS: readonly Setup[] = [sqliteOneProcess];
