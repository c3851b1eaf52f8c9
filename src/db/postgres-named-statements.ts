import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { preparedStatementName } from './prepared-query.ts';

/**
 * The pool as Kysely sees it, running the SQL of prepared queries (prepared-query.ts) as named
 * statements: PostgreSQL parses and plans each once per connection instead of on every run,
 * which is most of the server's work for a point lookup. Any other SQL runs as before.
 */
export function withNamedStatements(pool: pg.Pool): PostgresPool {
  // Kysely keeps its connection object per client: the same client, the same wrapper.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const known = wrappers.get(client);
    if (known) return known;
    const run = (sqlOrCursor: string | object, parameters?: unknown[]) => {
      if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as pg.Submittable);
      const name = preparedStatementName(sqlOrCursor);
      return name === undefined
        ? client.query(sqlOrCursor, parameters)
        : client.query({ name, text: sqlOrCursor, values: parameters ?? [] });
    };
    const wrapper: PostgresPoolClient = {
      query: run as unknown as PostgresPoolClient['query'],
      release: (destroy?: boolean) => client.release(destroy),
    };
    wrappers.set(client, wrapper);
    return wrapper;
  };
  return {
    options: pool.options,
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
}
