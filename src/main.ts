import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { ensureSigningKey, issuePlatformCredential } from './credentials/index.ts';
import { createDatabase, type Database } from './db/database.ts';
import { migrateToLatest, UnknownSchemaError } from './db/migrator.ts';
import type { Catalog } from './gateway/index.ts';
import { catalogSummary, GatewayConfigError, loadCatalog } from './gateway/index.ts';
import { processLogger } from './platform/log-format.ts';
import { DEMO_EMAIL, ensureDemoAccount } from './tenancy/index.ts';

const DEMO_CREDENTIAL_TTL = 24 * 3600;

/** Starts the service: store → schema → keys → demo data → HTTP; closes cleanly on SIGTERM. */
export async function start(config: Config): Promise<FastifyInstance> {
  // Read and checked before the store is opened: a bad catalog stops the start at once.
  const catalog = loadCatalog(config.catalogLocation);
  // The pool reports the idle connections it lost (the server restarted, a backend was
  // terminated) and replaces them by itself: a warning in the app's log, once there is one.
  let log: FastifyBaseLogger | undefined;
  const database = createDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    onIdleConnectionError: (error) => {
      if (log) log.warn({ err: error }, 'an idle database connection failed; the pool replaces it');
      else process.stderr.write(`mnemo: an idle database connection failed: ${error.message}\n`);
    },
  });
  await database.withoutTimeLimit(migrateToLatest);
  await ensureSigningKey(database.db);
  const app = await buildApp({
    config,
    database,
    catalog,
    logger: processLogger(config.logLevel),
  });
  log = app.log;
  // The signing key and the store's secrets were written outside `write`: on disk before use.
  await database.sync();
  closeOnSignals(app, database);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    await database.close();
    throw (error as { code?: unknown }).code === 'EADDRINUSE' ? new PortInUse(config) : error;
  }
  const announced = config.seedDemo && (await announceDemo(config, database, catalog));
  if (!announced) {
    announce([
      '',
      `mnemo is serving on ${config.publicUrl}`,
      studioLine(config),
      gatewayLine(catalog),
      '',
    ]);
  }
  return app;
}

/**
 * The start banner, for the person at the terminal: on stderr, so that stdout carries only the
 * JSON log lines that log collectors read (docs/configuration.md, "Logs"), and the demo
 * credential stays out of them.
 */
function announce(lines: readonly string[]): void {
  process.stderr.write(`${lines.join('\n')}\n`);
}

/** Another process listens on the configured port already: exit 1 with one line that says so. */
export class PortInUse extends Error {
  override readonly name = 'PortInUse';
  constructor(config: Pick<Config, 'host' | 'port'>) {
    const other = config.port === 65535 ? config.port - 1 : config.port + 1;
    super(
      `port ${config.port} on ${config.host} is already in use (is mnemo already running?); choose another with PORT, e.g. PORT=${other} npm start`,
    );
  }
}

const studioLine = (config: Config) => `studio:            ${config.publicUrl}/studio/`;
const gatewayLine = (catalog: Catalog) => `gateway:           ${catalogSummary(catalog)}`;

/** The banner with the demo account's sign-in and a credential; false when there is none. */
async function announceDemo(
  config: Config,
  database: Database,
  catalog: Catalog,
): Promise<boolean> {
  const demo = await ensureDemoAccount(database.db);
  if (!demo) return false;
  await database.sync();
  const token = await issuePlatformCredential(
    database.db,
    config.publicUrl,
    demo.userId,
    DEMO_CREDENTIAL_TTL,
  );
  const lines = [
    '',
    `mnemo is serving on ${config.publicUrl}`,
    `${studioLine(config)}  (sign in with the demo sign-in below)`,
    gatewayLine(catalog),
    `demo organization: ${demo.orgId}`,
    `demo user:         ${demo.userId}`,
    demo.password === undefined
      ? `demo sign-in:      ${DEMO_EMAIL} (its password was printed when the store was created)`
      : `demo sign-in:      ${DEMO_EMAIL} / ${demo.password} (shown this once)`,
    `sign-in pages:     ${config.publicUrl}/oauth`,
    'platform credential (24 h):',
    token,
    '',
    'try it:',
    `curl -s ${config.publicUrl}/api/v1/memory -H 'Authorization: Bearer ${token}' -H 'X-Organization-Id: ${demo.orgId}'`,
    '',
  ];
  announce(lines);
  return true;
}

function closeOnSignals(app: FastifyInstance, database: Database): void {
  let closing = false;
  const close = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'draining in-flight requests');
    // app.close() stops accepting, waits for in-flight requests, then the store is closed.
    app
      .close()
      .then(() => database.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => close('SIGTERM'));
  process.once('SIGINT', () => close('SIGINT'));
}

/** The process entry of `npm start` and `mnemo serve`: the configuration from the environment. */
export async function main(): Promise<void> {
  try {
    await start(loadConfig());
  } catch (error) {
    if (
      error instanceof ConfigError ||
      error instanceof GatewayConfigError ||
      error instanceof UnknownSchemaError
    ) {
      process.stderr.write(`mnemo: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof PortInUse) {
      process.stderr.write(`mnemo: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

if (import.meta.main) await main();
