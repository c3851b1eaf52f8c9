import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { ApiError } from '../platform/errors.ts';
import type { Args, OptionSpec } from './args.ts';

/** What a command printed: one JSON object with `--json`, else text for a person. */
export interface Outcome {
  readonly json: Readonly<Record<string, unknown>>;
  readonly text: string;
}

/** The store a command works on, migrated to the latest schema before the command runs. */
export interface StoreContext {
  readonly config: Config;
  readonly database: Database;
  /** The migrations applied on opening, for `mnemo migrate` to report. */
  readonly applied: readonly string[];
}

/** What a command does once its options are checked. */
export type Job =
  | { readonly kind: 'store'; readonly run: (context: StoreContext) => Promise<Outcome> }
  /** Runs on its own terms (the server): reads its configuration and keeps the process. */
  | { readonly kind: 'process'; readonly run: () => Promise<void> }
  /**
   * Talks to a mnemo server as its client (`login`, `whoami`, `logout`): no store. Ctrl-C aborts
   * `signal` and abandons the run.
   */
  | { readonly kind: 'remote'; readonly run: (signal: AbortSignal) => Promise<Outcome> };

export interface Command {
  /** The words that name it: `['admin', 'org', 'create']`. */
  readonly path: readonly string[];
  /** The usage line, from `mnemo` on. */
  readonly usage: string;
  readonly summary: string;
  readonly options: OptionSpec;
  /** The one word it takes besides its options, named as its usage names it (`FILE`). */
  readonly operand?: string;
  /**
   * Checks the options (throwing UsageError) and reads what the command needs from standard
   * input, before anything touches the store.
   */
  readonly prepare: (args: Args) => Job | Promise<Job>;
}

/** A command's precondition does not hold (unknown id, taken email, …): exit 1. */
export class PreconditionFailed extends Error {
  override readonly name = 'PreconditionFailed';
}

/** The environment's configuration is invalid: exit 2, as the server would refuse to start. */
export class InvalidConfiguration extends Error {
  override readonly name = 'InvalidConfiguration';
}

/** Ctrl-C stopped a remote command: the process then ends as interrupted by the signal. */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
}

export const unknownOrganization = (id: string) =>
  new PreconditionFailed(`unknown organization ${id}`);
export const unknownUser = (id: string) => new PreconditionFailed(`unknown user ${id}`);
export const unknownProject = (id: string) => new PreconditionFailed(`unknown project ${id}`);

/**
 * A service's 404 for the organization the operator named, said as the command line says it;
 * any other refusal goes on as it is (its sentence, exit 1).
 */
export const namingOrganization =
  (orgId: string) =>
  (error: unknown): never => {
    if (error instanceof ApiError && error.status === 404) throw unknownOrganization(orgId);
    throw error;
  };

export const onStore = (run: (context: StoreContext) => Promise<Outcome>): Job => ({
  kind: 'store',
  run,
});

export const onServer = (run: (signal: AbortSignal) => Promise<Outcome>): Job => ({
  kind: 'remote',
  run,
});

/**
 * Runs `run` until it settles or Ctrl-C comes: then `signal` is aborted and Interrupted thrown
 * at once, without waiting for `run` to notice (openid-client's polling looks at its signal only
 * between waits of up to five seconds).
 */
export async function untilInterrupted<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const interrupted = Promise.withResolvers<never>();
  const onInterrupt = () => {
    controller.abort();
    interrupted.reject(new Interrupted('interrupted'));
  };
  process.once('SIGINT', onInterrupt);
  try {
    return await Promise.race([run(controller.signal), interrupted.promise]);
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/**
 * Reads the configuration, opens its store, brings the schema up to date, runs `run`, and
 * closes the store.
 */
export async function withStore<T>(run: (context: StoreContext) => Promise<T>): Promise<T> {
  // Loaded on use, so help and usage errors answer without loading the drivers and schemas.
  const [{ ConfigError, loadConfig }, { createDatabase }, { migrateToLatest, UnknownSchemaError }] =
    await Promise.all([
      import('../config.ts'),
      import('../db/database.ts'),
      import('../db/migrator.ts'),
    ]);
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    throw error instanceof ConfigError ? new InvalidConfiguration(error.message) : error;
  }
  const database = createDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  try {
    let applied: string[];
    try {
      applied = await database.withoutTimeLimit(migrateToLatest);
    } catch (error) {
      throw error instanceof UnknownSchemaError ? new PreconditionFailed(error.message) : error;
    }
    return await run({ config, database, applied });
  } finally {
    await database.close();
  }
}
