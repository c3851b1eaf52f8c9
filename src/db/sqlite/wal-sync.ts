import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';

/** fsync of a SQLite database's write-ahead log, run on libuv's thread pool. */
export interface WalSync {
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the log on first use (it exists once a commit has been made) and syncs its folder once,
 * since a log the writer has just created is durable only with its directory entry.
 */
export function createWalSync(databaseFile: string): WalSync {
  let handle: Promise<FileHandle> | undefined;
  const wal = () =>
    (handle ??= (async () => {
      const file = await open(`${databaseFile}-wal`, 'r');
      const folder = await open(dirname(databaseFile), 'r');
      try {
        await folder.sync();
      } finally {
        await folder.close();
      }
      return file;
    })());
  return {
    async sync() {
      await (await wal()).sync();
    },
    async close() {
      if (handle) await (await handle).close();
    },
  };
}
