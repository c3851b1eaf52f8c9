import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Type } from 'typebox';
import { createAppsService, registerAppsRoutes } from './apps/index.ts';
import { createAuditLog } from './audit/index.ts';
import type { Config } from './config.ts';
import { createCredentialVerifier } from './credentials/index.ts';
import { createStoreProbe, readinessCheck } from './db/availability.ts';
import type { Database } from './db/database.ts';
import { instanceSecret } from './db/instance-secrets.ts';
import { createEndUsersService, registerEndUsersRoutes } from './end-users/index.ts';
import { createIdentityErasure } from './erasure/index.ts';
import type { Catalog, MemoryCalls } from './gateway/index.ts';
import {
  createCallUsage,
  createCircuitBreaker,
  createDispatcher,
  createMemoryCalls,
  createProviders,
  createSealer,
  createSearchEmbedders,
  createTransport,
  extractionModelId,
  loadCatalog,
  openAiErrorShape,
  registerGatewayRoutes,
  registerWebSocketSupport,
} from './gateway/index.ts';
import { createInvitationsService, registerInvitationsRoutes } from './invitations/index.ts';
import {
  createApiKeyAuthenticator,
  createKeysService,
  createLastUsedRecorder,
  registerKeyRoutes,
} from './keys/index.ts';
import { createServiceBackends, registerMcpRoutes } from './mcp/index.ts';
import {
  announcingWrites,
  createChatMemory,
  createCursorCodec,
  createEmbeddingIndexer,
  createListCache,
  createMemoryEmbeddingsRepository,
  createMemoryErasure,
  createMemoryEvents,
  createMemoryRepository,
  createMemorySearch,
  createMemoryService,
  createMemoryTargets,
  createOwnStoreReads,
  createPostgresWrites,
  createProposalsRepository,
  createProposalsService,
  createQueryEmbedder,
  createStatementWrites,
  createStoreChanges,
  createVectorIndex,
  type EmbeddingIndexer,
  POOL_ACCESS,
  registerMemoryRoutes,
  registerOrgExportRoutes,
  registerProposalsRoutes,
  type SemanticSearch,
  scheduleTombstonePurge,
} from './memory/index.ts';
import {
  createConnectionsService,
  createMcpAuthentication,
  createProviderHolder,
  createSignIn,
  oauthErrorShape,
  purgeExpiredOAuthRecords,
  registerConnectionRoutes,
  registerOAuthRoutes,
  registerProtectedResourceRoutes,
} from './oauth/index.ts';
import { registerApiDocs } from './platform/api-docs.ts';
import { createConcurrentHolds } from './platform/concurrent-holds.ts';
import { registerCors } from './platform/cors.ts';
import { registerDrain } from './platform/drain.ts';
import { noStore, registerErrorHandling, sendStoreUnavailable } from './platform/error-handler.ts';
import { apiErrorShape, createErrorSurfaces } from './platform/error-surfaces.ts';
import { registerJsonBodies } from './platform/json-body.ts';
import { registerLingeringClose } from './platform/lingering-close.ts';
import { createMailer } from './platform/mailer.ts';
import { routeEveryMethod } from './platform/method-not-allowed.ts';
import { registerOpenApi } from './platform/openapi.ts';
import { runPeriodically } from './platform/periodic-job.ts';
import { createSlidingWindowLimiter, type RateLimiter } from './platform/rate-limit.ts';
import { connectRedisCounters } from './platform/redis-counters.ts';
import { strictValidatorCompiler } from './platform/validator.ts';
import { registerStudioRoutes, STUDIO_BUILD_DIR } from './studio/index.ts';
import {
  createCollaboratorsService,
  createMembersService,
  createOrganizationsService,
  createPasswordReset,
  createPlatformAuthentication,
  createProjectsService,
  createSignUp,
  organizationInPath,
  type PasswordReset,
  projectOrganizationInPath,
  registerAuditRoutes,
  registerCollaboratorsRoutes,
  registerMembersRoutes,
  registerMeRoutes,
  registerOrgRoutes,
  registerProjectsRoutes,
} from './tenancy/index.ts';
import { createUsageRecorder, createUsageService, registerUsageRoutes } from './usage/index.ts';
import {
  createSecretBox,
  createWebhookDelivery,
  createWebhooksService,
  type DeliveryOptions,
  registerWebhooksRoutes,
} from './webhooks/index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Hybrid search's background embedding of memories, or null when search is lexical. Its
     * `idle()` resolves once every memory committed before the call has its vector: for tests
     * and benchmarks that search by meaning what they just wrote.
     */
    embeddingIndexer: EmbeddingIndexer | null;
    /**
     * Memory in chat calls. Its `idle()` resolves once every extraction started before the call
     * has stored what it learned: for tests and benchmarks that read it back.
     */
    memoryLearning: Pick<MemoryCalls, 'idle'>;
    /**
     * Password resets asked for. Its `idle()` resolves once every reset asked before the call
     * was looked up and its email sent (they run after the answer): for tests.
     */
    passwordResets: Pick<PasswordReset, 'idle'>;
  }
}

export interface AppDeps {
  readonly config: Config;
  readonly database: Database;
  /** Limiters from outside (a shared store); by default in-process ones from the config. */
  readonly rateLimiter?: RateLimiter | undefined;
  readonly failedAuthLimiter?: RateLimiter | undefined;
  readonly logger?: FastifyServerOptions['logger'];
  /** The studio's built bundle; by default what `npm run studio:build` wrote. */
  readonly studioDirectory?: string | undefined;
  /**
   * The chat interface's catalog, as main.ts read and checked it before opening the store; by
   * default read here from where the configuration locates it.
   */
  readonly catalog?: Catalog | undefined;
  /** The webhook delivery worker's schedule, timeouts and DNS, over the defaults (tests). */
  readonly webhookDelivery?: Partial<DeliveryOptions> | undefined;
  /** Change streams' pings, judgements of their callers and pages, smaller (tests). */
  readonly eventStreams?:
    | { readonly pingMs?: number; readonly recheckMs?: number; readonly pageSize?: number }
    | undefined;
}

/** Serialized full lists kept in memory, and the largest one kept (a few thousand memories). */
const LIST_CACHE_BYTES = 64 * 1024 * 1024;
const LIST_CACHE_BODY_BYTES = 1024 * 1024;

/**
 * Stores' vectors kept in memory for hybrid search: a store of 100,000 memories at 512
 * dimensions (the built-in OpenAI model's) is about 200 MB; a larger one is read for each search.
 */
const VECTOR_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * Change streams one account may hold open at once (on all processes together when they share
 * a Redis): a studio tab holds one, an app mirroring a few stores a few (docs/design.md §3.8).
 */
const OPEN_STREAMS_PER_ACCOUNT = 20;

/** 64 KiB: far above the largest valid memory, low enough to refuse abuse cheaply. */
const BODY_LIMIT = 64 * 1024;

/**
 * Path parameters (ids) of any length reach their route, which answers 404 for an id it does
 * not know, after authentication; Fastify's default (100) answered 400 before it. The request
 * line's own limit (Node's 16 KiB of headers) still bounds them.
 */
const MAX_PARAM_LENGTH = 16 * 1024;

/** Failed sign-ins allowed per account and per client address in a quarter of an hour. */
const SIGN_IN_WINDOW_SECONDS = 15 * 60;
const SIGN_IN_FAILURES_PER_ACCOUNT = 10;
const SIGN_IN_FAILURES_PER_ADDRESS = 50;

/**
 * The forms that make accounts or send email (sign-up, password reset, joining with a new
 * account) in a quarter of an hour: per address they name, and per client address.
 */
const ACCOUNT_FORMS_PER_EMAIL = 5;
const ACCOUNT_FORMS_PER_CLIENT = 30;

/** Client registrations (RFC 7591) are counted per client address over an hour. */
const REGISTRATION_WINDOW_SECONDS = 3600;

/** How long /readyz waits for the store's answer: a probe must not hang with it. */
const READY_TIMEOUT_MS = 1000;

/** The composition root: every part of the HTTP interface is wired here, explicitly. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  // Errors raised before any route's handler runs are shaped by the interface of their path.
  const surfaces = createErrorSurfaces({
    '/v1': openAiErrorShape,
    '/oauth': oauthErrorShape,
    '/mcp': apiErrorShape,
  });
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: surfaces.frameworkErrors,
    clientErrorHandler: surfaces.clientErrorHandler,
    // Shutdown is handled by registerDrain, in the interface's error shape.
    return503OnClosing: false,
    // Behind a load balancer, the client's address (failed-auth limit, logs) comes from
    // X-Forwarded-For, believed only from the proxies named.
    ...(config.trustProxy.length > 0 ? { trustProxy: config.trustProxy.join(',') } : {}),
  });
  app.setValidatorCompiler(strictValidatorCompiler);
  // First, before any hook: an upgrade a hook refuses must still have its socket closed.
  await registerWebSocketSupport(app);
  app.decorateRequest('caller');
  app.addHook('onRequest', (_request, reply, done) => {
    noStore(reply);
    done();
  });
  // No answer leaves before the commits it may show are on disk (Database.durable). When the
  // store cannot sync, the request fails; its 500 shows nothing and goes out as it is. A route
  // whose answers show nothing of the store (the chat interface) says so and does not wait.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.routeOptions.config.revealsNoStoredState === true) return done(null, payload);
    const pending = database.durable();
    if (!pending) return done(null, payload);
    pending.then(
      () => done(null, payload),
      (error: Error) => (reply.statusCode >= 500 ? done(null, payload) : done(error)),
    );
  });
  registerDrain(app);
  registerErrorHandling(app, surfaces);
  routeEveryMethod(app);
  registerJsonBodies(app);
  registerLingeringClose(app);
  // Browser apps of the origins in MNEMO_CORS_ORIGINS: before authentication, so a preflight
  // (which carries no credential) is answered.
  await registerCors(app, config.corsOrigins);
  await registerOpenApi(app, config.publicUrl);
  await registerApiDocs(app);

  // Both limits count in Redis when there is one (one connection per process), else here. A
  // minute's counts are read until the end of the next minute: they are kept two.
  const shared = config.redisUrl
    ? await connectRedisCounters({ url: config.redisUrl, log: app.log })
    : undefined;
  if (shared) app.addHook('onClose', () => shared.close());
  const limiter = (name: string, perMinute: number) =>
    perMinute > 0
      ? createSlidingWindowLimiter({ limit: perMinute, counters: shared?.counters(name, 2 * 60) })
      : undefined;
  const verify = createCredentialVerifier({
    db: database.db,
    publicUrl: config.publicUrl,
    outsideIssuer: config.outsideIssuer,
    clockToleranceSeconds: config.authClockToleranceSeconds,
  });
  // One budget per subject whichever door a request comes through (the API, /mcp).
  const rateLimiter = deps.rateLimiter ?? limiter('credential', config.rateLimitPerMinute);
  const failedAuthLimiter =
    deps.failedAuthLimiter ?? limiter('failed-auth', config.failedAuthPerMinute);
  const authenticate = createPlatformAuthentication({
    database,
    verify,
    rateLimiter,
    failedAuthLimiter,
    rateLimitCeiling: config.appRateLimitMax,
  });

  // The providers and models, and one transport whose pools every call to a provider shares:
  // the chat interface's, and memory search's embedding model's.
  const catalog = deps.catalog ?? loadCatalog(config.catalogLocation);
  const transport = createTransport({
    firstByteTimeoutMs: config.gatewayTimeoutMs,
    idleTimeoutMs: config.gatewayTimeoutMs,
  });
  app.addHook('onClose', () => transport.close());

  // Hybrid search when the catalog names an embedding model for it (docs/design.md §3.4.1):
  // memories are embedded in the background, queries on the request path. Its circuit breaker
  // is its own: failing embeddings keep no provider out of the router's choices.
  const embeddings = createMemoryEmbeddingsRepository(database);
  const searchModel = catalog.search.embeddingModel;
  const searchEmbedders = createSearchEmbedders(catalog, transport, createCircuitBreaker());
  const vectors = createVectorIndex({ repository: embeddings, maxBytes: VECTOR_CACHE_BYTES });
  const indexer =
    searchEmbedders &&
    createEmbeddingIndexer({
      database,
      repository: embeddings,
      embedder: searchEmbedders.documents,
      log: app.log,
      vectorsWritten: (scopeIds) => {
        for (const scopeId of scopeIds) vectors.vectorsWritten(scopeId);
      },
    });
  if (indexer) app.addHook('onClose', () => indexer.close());
  app.decorate('embeddingIndexer', indexer ?? null);
  const semantic: SemanticSearch | undefined = searchModel &&
    searchEmbedders &&
    indexer && {
      queries: createQueryEmbedder({
        embedder: searchEmbedders.queries,
        timeoutMs: config.searchEmbeddingTimeoutMs,
        log: app.log,
      }),
      vectors,
      minSimilarity: searchModel.minSimilarity,
      contentChanged: () => indexer.nudge(),
    };

  const memoryRepository = createMemoryRepository(database);
  // On SQLite, searches run in worker threads started with the first one; they end with the app.
  const search = createMemorySearch(database);
  app.addHook('onClose', () => search.close());
  // Every write says which store it changed, for the change streams of every process.
  const storeChanges = createStoreChanges(database.notifications, (error) =>
    app.log.warn({ err: error }, 'a change notification could not be sent'),
  );
  const memoryTargets = createMemoryTargets(database);
  const cursors = createCursorCodec(await instanceSecret(database.db, 'cursor-hmac'));
  const service = createMemoryService({
    database,
    repository: memoryRepository,
    ownReads: createOwnStoreReads(database, POOL_ACCESS.read),
    writes: announcingWrites(
      database.dialect === 'postgres'
        ? createPostgresWrites({ database, repository: memoryRepository, embeddings })
        : createStatementWrites({ database, repository: memoryRepository, embeddings }),
      storeChanges,
    ),
    changes: storeChanges,
    search,
    embeddings,
    semantic,
    targets: memoryTargets,
    cursors,
    fullLists: createListCache({ maxBytes: LIST_CACHE_BYTES, maxBodyBytes: LIST_CACHE_BODY_BYTES }),
    maxContentChars: config.maxContentChars,
    optimisticConcurrency: config.optimisticConcurrency,
  });
  registerMemoryRoutes(app, {
    service,
    authentication: authenticate,
    environment: config.env,
    maxContentChars: config.maxContentChars,
    importItems: limiter('import-items', config.importItemsPerMinute),
    events: createMemoryEvents({
      database,
      repository: memoryRepository,
      targets: memoryTargets,
      cursors,
      changes: storeChanges,
      ...deps.eventStreams,
    }),
    // Shared by every process on the Redis, as the rate limits are; else each process's own.
    openStreams:
      shared?.holds('open-streams', OPEN_STREAMS_PER_ACCOUNT) ??
      createConcurrentHolds(OPEN_STREAMS_PER_ACCOUNT),
  });
  // What chat calls learn, when it waits for review (MNEMO_MEMORY_EXTRACTION=review).
  const proposals = createProposalsService({
    database,
    repository: createProposalsRepository(database.db),
    memory: service,
  });
  registerProposalsRoutes(app, {
    service: proposals,
    authenticate: authenticate.member,
    environment: config.env,
  });

  // The platform API (each part registers its routes below this line).
  // Organizations, members, projects and their collaborators, and the audit log: the studio's
  // management. A route under `/orgs/{orgId}` or `/projects/{projectId}` is authenticated as a
  // member of the organization its path names (404 for an unknown one, before membership).
  const memberOfOrgInPath = authenticate.memberOf(organizationInPath(database.db));
  const memberOfProjectInPath = authenticate.memberOf(projectOrganizationInPath(database.db));
  const organizations = createOrganizationsService({ database, environment: config.env });
  registerMeRoutes(app, { service: organizations, account: authenticate.account });
  registerOrgRoutes(app, { service: organizations, authenticate: memberOfOrgInPath });
  registerMembersRoutes(app, {
    service: createMembersService(database),
    authenticate: memberOfOrgInPath,
  });
  const projects = createProjectsService(database);
  registerProjectsRoutes(app, {
    service: projects,
    authenticateOrg: memberOfOrgInPath,
    authenticateProject: memberOfProjectInPath,
  });
  registerCollaboratorsRoutes(app, {
    service: createCollaboratorsService(database),
    authenticate: memberOfProjectInPath,
  });
  // Identities that never sign in (end users, apps) are erased with all that is held of them.
  const erasure = createIdentityErasure({
    database,
    memories: createMemoryErasure({ database, repository: memoryRepository, embeddings }),
    storesErased: (scopeIds) => service.forgetStores(scopeIds),
  });
  const endUsers = createEndUsersService({ database, erasure });
  registerEndUsersRoutes(app, { service: endUsers, authenticate: memberOfOrgInPath });
  registerOrgExportRoutes(app, { service, authenticate: memberOfOrgInPath });
  // Email (invitations, sign-up, password resets) when the operator configured SMTP.
  const mailer = createMailer(config.smtp);
  app.addHook('onClose', () => mailer.close());
  const invitations = createInvitationsService({
    database,
    mailer,
    publicUrl: config.publicUrl,
    lifetimeDays: config.invitationDays,
    log: app.log,
  });
  registerInvitationsRoutes(app, { service: invitations, authenticate: memberOfOrgInPath });
  registerAppsRoutes(app, {
    service: createAppsService({
      database,
      erasure,
      rateLimits: {
        defaultPerMinute: config.rateLimitPerMinute,
        maxPerMinute: config.appRateLimitMax,
      },
    }),
    authenticate: memberOfOrgInPath,
  });
  // Webhooks: the API, and a delivery worker in every process (docs/webhooks.md).
  const webhookSecrets = createSecretBox(await instanceSecret(database.db, 'webhook-secrets'));
  const webhookDelivery = createWebhookDelivery({
    database,
    secrets: webhookSecrets,
    policy: config.webhooks,
    log: app.log,
    options: deps.webhookDelivery,
  });
  app.addHook('onReady', async () => webhookDelivery.start());
  app.addHook('onClose', () => webhookDelivery.close());
  // The hourly purges, started with the server as the delivery worker is: tombstones past their
  // retention (when one is set); and what expired of the authorization server (codes, sessions,
  // refresh tokens), which oidc-provider never deletes, with the sign-up, reset and sign-in
  // links no one can use any more.
  const stopPurges: (() => void)[] = [];
  app.addHook('onReady', async () => {
    if (config.tombstoneRetentionDays > 0) {
      stopPurges.push(
        scheduleTombstonePurge(database, config.tombstoneRetentionDays, (error) =>
          app.log.error({ err: error }, 'tombstone purge failed'),
        ),
      );
    }
    stopPurges.push(
      runPeriodically(
        () => purgeExpiredOAuthRecords(database),
        3600 * 1000,
        (error) => app.log.error({ err: error }, 'purging expired authorization records failed'),
      ),
    );
  });
  app.addHook('onClose', async () => {
    for (const stop of stopPurges) stop();
  });
  registerWebhooksRoutes(app, {
    service: createWebhooksService({
      database,
      secrets: webhookSecrets,
      policy: config.webhooks,
      delivery: webhookDelivery,
    }),
    authenticate: memberOfOrgInPath,
  });
  registerAuditRoutes(app, { auditLog: createAuditLog(database), member: authenticate.member });
  registerUsageRoutes(app, { authenticate, usage: createUsageService(database.db) });
  registerKeyRoutes(app, { authenticate, keys: createKeysService({ database }) });
  // The chat interface's key check. Key uses are written in batches, and once more on close.
  const keyUses = createLastUsedRecorder({
    database,
    onError: (error) => app.log.warn({ err: error }, 'writing API keys last used failed'),
  });
  app.addHook('onClose', () => keyUses.close());
  const authenticateApiKey = createApiKeyAuthenticator({ database, lastUsed: keyUses });
  // The MCP server: the memory tools over the same services, for MCP clients.
  registerMcpRoutes(app, {
    authenticate: createMcpAuthentication({
      database,
      publicUrl: config.publicUrl,
      clockToleranceSeconds: config.authClockToleranceSeconds,
      authenticateApiKey,
      rateLimiter,
      failedAuthLimiter,
    }),
    backendFor: createServiceBackends({
      memory: service,
      projects,
      organizations,
      environment: config.env,
    }),
    allowedOrigins: [new URL(config.publicUrl).origin, ...config.corsOrigins],
    publicUrl: config.publicUrl,
  });
  const usageRecorder = createUsageRecorder(database);
  app.addHook('onClose', () => usageRecorder.close());
  // The chat interface: its providers share the transport's pools, and one circuit breaker
  // keeps failing providers out of the router's choices.
  // Memory in chat calls reaches the memory service through the gateway's port, as the key's
  // owner (docs/memory-chat.md).
  const dispatcher = createDispatcher({
    catalog,
    providers: createProviders(catalog, transport),
    breaker: createCircuitBreaker(),
  });
  const callUsage = createCallUsage(usageRecorder, app.log);
  const memoryLearning = createMemoryCalls({
    store: createChatMemory({
      memory: service,
      proposals,
      environment: config.env,
      review: config.memoryChat.extraction === 'review',
      log: app.log,
      findEndUser: endUsers.idOf,
    }),
    dispatcher,
    usage: callUsage,
    log: app.log,
    config: {
      ...config.memoryChat,
      extractionModel: extractionModelId(catalog, config.memoryChat.extractionModel),
    },
  });
  registerGatewayRoutes(app, {
    catalog,
    dispatcher,
    authenticateApiKey,
    usage: callUsage,
    sealer: createSealer(await instanceSecret(database.db, 'gateway-sealing')),
    websocketIdleMs: config.gatewayWebSocketIdleMs,
    memory: memoryLearning,
  });
  app.decorate('memoryLearning', memoryLearning);
  // Before the store closes: an extraction in flight is given up, its writes finished.
  app.addHook('onClose', () => memoryLearning.close());

  // Failed sign-ins are throttled whatever the request rate limit: they guard passwords.
  const signInLimiter = (name: string, limit: number) =>
    createSlidingWindowLimiter({
      limit,
      windowSeconds: SIGN_IN_WINDOW_SECONDS,
      counters: shared?.counters(name, 2 * SIGN_IN_WINDOW_SECONDS),
    });
  const providers = createProviderHolder(
    {
      database,
      log: app.log,
      publicUrl: config.publicUrl,
      accessTokenTtlSeconds: config.accessTokenTtlSeconds,
      cookieKey: (await instanceSecret(database.db, 'oauth-cookies')).toString('base64url'),
      clientRegistration: config.clientRegistration,
      fetchPrivateAddresses: config.clientMetadataPrivateAddresses,
    },
    (error) => app.log.error({ err: error }, 'reloading the signing keys failed'),
  );
  const passwordReset = createPasswordReset({
    database,
    mailer,
    issuer: `${config.publicUrl}/oauth`,
    log: app.log,
  });
  app.decorate('passwordResets', passwordReset);
  app.addHook('onClose', () => passwordReset.idle());
  const connections = createConnectionsService({ database, providers });
  registerOAuthRoutes(app, {
    providers,
    db: database.db,
    database,
    connections,
    organizations,
    publicUrl: config.publicUrl,
    verify,
    signIn: createSignIn({
      db: database.db,
      perAccount: signInLimiter('failed-sign-in-account', SIGN_IN_FAILURES_PER_ACCOUNT),
      perAddress: signInLimiter('failed-sign-in-address', SIGN_IN_FAILURES_PER_ADDRESS),
    }),
    clockToleranceMs: config.authClockToleranceSeconds * 1000,
    accountPages: {
      invitations,
      signUp: createSignUp({
        database,
        mailer,
        mode: config.signup,
        issuer: `${config.publicUrl}/oauth`,
        studioUrl: `${config.publicUrl}/studio/`,
      }),
      passwordReset,
      signupMode: config.signup,
      limits: {
        perEmail: signInLimiter('account-form-email', ACCOUNT_FORMS_PER_EMAIL),
        perClient: signInLimiter('account-form-address', ACCOUNT_FORMS_PER_CLIENT),
      },
    },
    registrationLimiter:
      config.clientRegistration && config.clientRegistrationsPerHour > 0
        ? createSlidingWindowLimiter({
            limit: config.clientRegistrationsPerHour,
            windowSeconds: REGISTRATION_WINDOW_SECONDS,
            counters: shared?.counters('client-registration', 2 * REGISTRATION_WINDOW_SECONDS),
          })
        : undefined,
  });
  registerProtectedResourceRoutes(app, { publicUrl: config.publicUrl });
  registerConnectionRoutes(app, { account: authenticate.account, connections });

  registerStudioRoutes(app, { directory: deps.studioDirectory ?? STUDIO_BUILD_DIR });

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['service'],
        summary: 'Liveness: the process serves HTTP',
        response: { 200: Type.Object({ ok: Type.Literal(true) }) },
      },
    },
    () => ({ ok: true as const }),
  );
  // Readiness, for a load balancer: no credential, no rate limit. While draining after SIGTERM
  // the drain hook answers 503 before this runs (platform/drain.ts).
  const storeAnswers = createStoreProbe(readinessCheck(database), READY_TIMEOUT_MS);
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['service'],
        summary:
          'Readiness: the store answers and syncs within 1 s, and the process is not draining',
        response: {
          200: Type.Object({ ready: Type.Literal(true) }),
          503: Type.Object(
            { error: Type.String() },
            {
              description: 'Not ready: the store does not answer, or the process is shutting down',
              headers: {
                'retry-after': { type: 'integer', description: 'Seconds before asking again' },
              },
            },
          ),
        },
      },
    },
    async (_request, reply) =>
      (await storeAnswers()) ? { ready: true as const } : sendStoreUnavailable(reply),
  );
  return app;
}
