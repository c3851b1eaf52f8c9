import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../app.ts';
import { type Config, loadConfig } from '../config.ts';
import { issuePlatformCredential } from '../credentials/platform-credential.ts';
import { ensureSigningKey } from '../credentials/signing-keys.ts';
import { createDatabase, type Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrator.ts';
import type { MemberRole, ProjectAccess } from '../db/tables.ts';
import {
  insertOrganization,
  type NewOrganization,
  upsertMembership,
} from '../tenancy/orgs.repository.ts';
import { insertProject, upsertProjectAccess } from '../tenancy/projects.repository.ts';
import { type AccountStatus, insertUser, updateUserStatus } from '../tenancy/users.repository.ts';
import type { DeliveryOptions } from '../webhooks/webhook-delivery.ts';
import { createTestStore, type TestStore } from './test-store.ts';

/** Builds a Config as the server would from this environment, over the defaults. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ MNEMO_LOG_LEVEL: 'silent', MNEMO_RATE_LIMIT_PER_MINUTE: '0', ...env });
}

export interface TestApp {
  readonly app: FastifyInstance;
  readonly database: Database;
  readonly config: Config;
  readonly store: TestStore;
  readonly fixtures: Fixtures;
  /** `app.inject` with a credential and organization: the usual memory request. */
  readonly request: (
    who: { token: string; orgId: string },
    options: InjectOptions,
  ) => Promise<LightMyRequestResponse>;
  readonly close: () => Promise<void>;
}

/**
 * The real app on a real migrated store of its own (the suite's engine: test-store.ts), for
 * `app.inject` or `app.listen`. Rate limiting is off unless the environment given turns it on.
 */
export async function buildTestApp(
  env: Record<string, string> = {},
  options: {
    /** Lets a test stand between the app and its store (a store that cannot sync, say). */
    readonly wrapDatabase?: (database: Database) => Database;
    /** Another app's store, as a second process would share it; left for its owner to remove. */
    readonly sharedStore?: TestStore;
    /** The studio bundle to serve (browser tests build their own). */
    readonly studioDirectory?: string;
    /** Change streams' pings and rechecks (ms), and pages, smaller than the server's. */
    readonly eventStreams?: {
      readonly pingMs?: number;
      readonly recheckMs?: number;
      readonly pageSize?: number;
    };
    /** The webhook delivery worker's schedule, timeouts and DNS (webhook tests). */
    readonly webhookDelivery?: Partial<DeliveryOptions>;
  } = {},
): Promise<TestApp> {
  const store = options.sharedStore ?? (await createTestStore());
  const config = testConfig({ MNEMO_DATABASE_URL: store.url, ...env });
  const database = createDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  await database.withoutTimeLimit(migrateToLatest);
  await ensureSigningKey(database.db);
  const app = await buildApp({
    config,
    database: options.wrapDatabase?.(database) ?? database,
    logger: false,
    studioDirectory: options.studioDirectory,
    eventStreams: options.eventStreams,
    webhookDelivery: options.webhookDelivery,
  });
  await app.ready();
  return {
    app,
    database,
    config,
    store,
    fixtures: createFixtures(database, config),
    request: (who, options) =>
      app.inject({
        ...options,
        headers: {
          authorization: `Bearer ${who.token}`,
          'x-organization-id': who.orgId,
          ...(options.headers ?? {}),
        },
      }),
    close: async () => {
      await app.close();
      await database.close();
      if (!options.sharedStore) await store.dispose();
    },
  };
}

export interface Fixtures {
  org(options?: Partial<Omit<NewOrganization, 'id'>>): Promise<string>;
  /** A user with a platform credential; a member of `orgId` with `role` when given. */
  user(orgId?: string, role?: MemberRole): Promise<{ id: string; token: string }>;
  member(orgId: string, userId: string, role?: MemberRole): Promise<void>;
  /**
   * A member who calls the API, as `TestApp.request` takes one: a new user of `orgId` (of a new
   * organization when not given) with `role`, its credential and its organization.
   */
  caller(
    orgId?: string,
    role?: MemberRole,
  ): Promise<{ orgId: string; token: string; userId: string }>;
  status(userId: string, status: Exclude<AccountStatus, 'erased'>): Promise<void>;
  project(orgId: string, grants?: Record<string, ProjectAccess>): Promise<string>;
  grant(projectId: string, userId: string, access: ProjectAccess): Promise<void>;
  token(userId: string, ttlSeconds?: number): Promise<string>;
}

export function createFixtures(database: Database, config: Config): Fixtures {
  const { db } = database;
  const fixtures: Fixtures = {
    async org(options = {}) {
      const id = randomUUID();
      await insertOrganization(db, { name: 'Org', ...options, id });
      return id;
    },
    async user(orgId, role = 'member') {
      const id = randomUUID();
      await insertUser(db, { id, email: `${id}@example.test` });
      if (orgId) await upsertMembership(db, orgId, id, role);
      return { id, token: await fixtures.token(id) };
    },
    member: (orgId, userId, role = 'member') => upsertMembership(db, orgId, userId, role),
    async caller(orgId, role) {
      const org = orgId ?? (await fixtures.org());
      const user = await fixtures.user(org, role);
      return { orgId: org, token: user.token, userId: user.id };
    },
    async status(userId, status) {
      await updateUserStatus(db, userId, status);
    },
    async project(orgId, grants = {}) {
      const id = randomUUID();
      await insertProject(db, { id, orgId, name: 'Project' });
      for (const [userId, access] of Object.entries(grants))
        await upsertProjectAccess(db, id, userId, access);
      return id;
    },
    grant: (projectId, userId, access) => upsertProjectAccess(db, projectId, userId, access),
    token: (userId, ttlSeconds = 3600) =>
      issuePlatformCredential(db, config.publicUrl, userId, ttlSeconds),
  };
  return fixtures;
}
