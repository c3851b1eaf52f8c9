import type { Compilable, CompiledQuery, QueryResult } from 'kysely';

/** Stands for a value in a query compiled once; the value of a run takes its place. */
class Placeholder {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

/** What runs a compiled query: the Kysely instance it was built on, or one of its transactions. */
export interface QueryRunner {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

/** A query compiled once, run with the values of each call. */
export interface PreparedQuery<Params, Row> {
  execute(db: QueryRunner, params: Params): Promise<QueryResult<Row>>;
  /** The rows of a run. */
  rows(db: QueryRunner, params: Params): Promise<Row[]>;
  /** The first row of a run, or undefined. */
  first(db: QueryRunner, params: Params): Promise<Row | undefined>;
}

export class PreparedQueryError extends Error {
  override readonly name = 'PreparedQueryError';
}

/**
 * Builds and compiles a query once, for the hot paths: Kysely builds and compiles a query on
 * every call, and that costs several times more than running a point lookup on SQLite. `build`
 * receives placeholders for the values and must not look at them (no branching on a value):
 * each placeholder has to end up as a parameter of the query, where a run puts its value. The
 * SQL stays Kysely's; only the parameter list is filled in per call.
 *
 * @example
 * const byId = prepareQuery((p: { id: string }) =>
 *   db.selectFrom('users').select('status').where('id', '=', p.id),
 * );
 * const row = await byId.first(db, { id });
 */
export function prepareQuery<Params extends object, Row>(
  build: (params: Params) => Compilable<Row>,
): PreparedQuery<Params, Row> {
  const placeholders = new Map<string, Placeholder>();
  const params = new Proxy({} as Params, {
    get(_target, name) {
      if (typeof name !== 'string') return undefined;
      let placeholder = placeholders.get(name);
      if (!placeholder) {
        placeholder = new Placeholder(name);
        placeholders.set(name, placeholder);
      }
      return placeholder;
    },
  });
  const compiled = build(params).compile();
  // Where each parameter of the query comes from: a value of the call, or a constant.
  const slots = compiled.parameters.map((value) =>
    value instanceof Placeholder ? { name: value.name as keyof Params } : { value },
  );
  const used = new Set<unknown>(slots.flatMap((slot) => ('name' in slot ? [slot.name] : [])));
  const lost = [...placeholders.keys()].filter((name) => !used.has(name));
  if (lost.length > 0) {
    throw new PreparedQueryError(
      `prepared query: ${lost.join(', ')} did not become a parameter of: ${compiled.sql}`,
    );
  }

  registerStatement(compiled.sql);
  const bind = (values: Params): CompiledQuery<Row> => ({
    ...compiled,
    parameters: slots.map((slot) => ('name' in slot ? values[slot.name] : slot.value)),
  });
  const execute = (executor: QueryRunner, values: Params) => executor.executeQuery(bind(values));
  return {
    execute,
    rows: async (executor, values) => (await execute(executor, values)).rows,
    first: async (executor, values) => (await execute(executor, values)).rows[0],
  };
}

/** The SQL of every prepared query, with the statement name a server may keep it under. */
const statementNames = new Map<string, string>();

function registerStatement(sql: string): void {
  if (!statementNames.has(sql)) statementNames.set(sql, `mnemo_${statementNames.size + 1}`);
}

/**
 * The name under which a server may keep `sql` parsed and planned, when it is the SQL of a
 * prepared query: those are few and fixed for the life of the process, so a connection keeps
 * one statement per query, never more. Undefined for any other SQL (built per call, its text
 * may vary without bound).
 */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}
