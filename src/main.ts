import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { createDatabase, type Database } from './db/database.ts';
import { migrateToLatest, UnknownSchemaError } from './db/migrator.ts';
import { scheduleTombstonePurge } from './memory/tombstone-retention.ts';
import { purgeExpiredOAuthRecords } from './oauth/oidc-adapter.ts';
import { issuePlatformCredential } from './oauth/platform-credential.ts';
import { ensureSigningKey } from './oauth/signing-keys.ts';
import { DEMO_EMAIL, ensureDemoAccount } from './orgs/demo-seed.ts';
import { runPeriodically } from './platform/periodic-job.ts';

const DEMO_CREDENTIAL_TTL = 24 * 3600;

/** Starts the service: store → schema → keys → demo data → HTTP; closes cleanly on SIGTERM. */
export async function start(config: Config): Promise<FastifyInstance> {
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
  await migrateToLatest(database.db);
  await ensureSigningKey(database.db);
  const app = await buildApp({ config, database });
  log = app.log;
  // The signing key and the store's secrets were written outside `write`: on disk before use.
  await database.sync();
  if (config.tombstoneRetentionDays > 0) {
    const stop = scheduleTombstonePurge(database, config.tombstoneRetentionDays, (error) =>
      app.log.error({ err: error }, 'tombstone purge failed'),
    );
    app.addHook('onClose', async () => stop());
  }
  // oidc-provider never deletes what expired (codes, sessions, refresh tokens): the store does.
  const stopOAuthPurge = runPeriodically(
    () => purgeExpiredOAuthRecords(database),
    3600 * 1000,
    (error) => app.log.error({ err: error }, 'purging expired authorization records failed'),
  );
  app.addHook('onClose', async () => stopOAuthPurge());
  closeOnSignals(app, database);
  await app.listen({ port: config.port, host: config.host });
  const announced = config.seedDemo && (await announceDemo(config, database));
  if (!announced) {
    process.stdout.write(`\nmnemo is serving on ${config.publicUrl}\n${studioLine(config)}\n\n`);
  }
  return app;
}

const studioLine = (config: Config) => `studio:            ${config.publicUrl}/studio/`;

/** The banner with the demo account's sign-in and a credential; false when there is none. */
async function announceDemo(config: Config, database: Database): Promise<boolean> {
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
    `demo organization: ${demo.orgId}`,
    `demo user:         ${demo.userId}`,
    demo.password === undefined
      ? `demo sign-in:      ${DEMO_EMAIL} (its password was printed when the store was created)`
      : `demo sign-in:      ${DEMO_EMAIL} / ${demo.password} (shown this once)`,
    `sign-in pages:     ${config.publicUrl}/oauth (see README, "Sign in and get a credential")`,
    'platform credential (24 h):',
    token,
    '',
    'try it:',
    `curl -s ${config.publicUrl}/api/v1/memory -H 'Authorization: Bearer ${token}' -H 'X-Organization-Id: ${demo.orgId}'`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
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
    if (error instanceof ConfigError || error instanceof UnknownSchemaError) {
      process.stderr.write(`mnemo: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

if (import.meta.main) await main();
