import type { Database } from '../db/database.ts';
import { runPeriodically } from '../platform/periodic-job.ts';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Removes tombstones older than the retention window. Each scope remembers the highest version
 * it purged, so a cursor from before it answers 410 (pull in full) instead of silently missing
 * the deletions it can no longer be told about.
 */
export async function purgeTombstones(database: Database, retentionDays: number, now = Date.now()) {
  const cutoff = now - retentionDays * DAY_MS;
  return database.write(async (trx) => {
    const purged = await trx
      .selectFrom('memories')
      .select(['scope_id', (eb) => eb.fn.max('version').as('version')])
      .where('deleted_at', '<', cutoff)
      .groupBy('scope_id')
      // Scope rows are locked in one order by every process's purge: two cannot deadlock.
      .orderBy('scope_id')
      .execute();
    for (const { scope_id, version } of purged) {
      await trx
        .updateTable('scopes')
        .set({ purged_version: Number(version) })
        .where('id', '=', scope_id)
        .where('purged_version', '<', Number(version))
        .execute();
      await trx
        .deleteFrom('memories')
        .where('scope_id', '=', scope_id)
        .where('deleted_at', '<', cutoff)
        .where('version', '<=', Number(version))
        .execute();
    }
    return purged.length;
  });
}

/** Purges now and then every hour while the process runs. */
export function scheduleTombstonePurge(
  database: Database,
  retentionDays: number,
  onError: (error: unknown) => void,
): () => void {
  return runPeriodically(() => purgeTombstones(database, retentionDays), 3600 * 1000, onError);
}
