import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Type } from 'typebox';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { instanceSecret } from './db/instance-secrets.ts';
import { createCursorCodec } from './memory/cursor.ts';
import { createListCache } from './memory/list-cache.ts';
import { createMemoryRepository } from './memory/memory.repository.ts';
import { registerMemoryRoutes } from './memory/memory.routes.ts';
import { createMemoryService } from './memory/memory.service.ts';
import { createMemoryTargets } from './memory/memory.targets.ts';
import { createPlatformAuthentication } from './platform/authenticate.ts';
import { createCredentialVerifier } from './platform/credentials.ts';
import { registerDrain } from './platform/drain.ts';
import { frameworkErrors, noStore, registerErrorHandling } from './platform/error-handler.ts';
import { registerOpenApi } from './platform/openapi.ts';
import { createSlidingWindowLimiter, type RateLimiter } from './platform/rate-limit.ts';
import { strictValidatorCompiler } from './platform/validator.ts';

export interface AppDeps {
  readonly config: Config;
  readonly database: Database;
  /** Limiters from outside (a shared store); by default in-process ones from the config. */
  readonly rateLimiter?: RateLimiter | undefined;
  readonly failedAuthLimiter?: RateLimiter | undefined;
  readonly logger?: FastifyServerOptions['logger'];
}

/** Serialized full lists kept in memory, and the largest one kept (a few thousand memories). */
const LIST_CACHE_BYTES = 64 * 1024 * 1024;
const LIST_CACHE_BODY_BYTES = 1024 * 1024;

/** 64 KiB: far above the largest valid memory, low enough to refuse abuse cheaply. */
const BODY_LIMIT = 64 * 1024;

/** The composition root: every part of the HTTP interface is wired here, explicitly. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    bodyLimit: BODY_LIMIT,
    frameworkErrors,
    // Shutdown is handled by registerDrain, in the interface's error shape.
    return503OnClosing: false,
  });
  app.setValidatorCompiler(strictValidatorCompiler);
  app.decorateRequest('caller');
  app.addHook('onRequest', (_request, reply, done) => {
    noStore(reply);
    done();
  });
  // No answer leaves before the commits it may show are on disk (Database.durable). When the
  // store cannot sync, the request fails; its 500 shows nothing and goes out as it is.
  app.addHook('onSend', (_request, reply, payload, done) => {
    const pending = database.durable();
    if (!pending) return done(null, payload);
    pending.then(
      () => done(null, payload),
      (error: Error) => (reply.statusCode >= 500 ? done(null, payload) : done(error)),
    );
  });
  registerDrain(app);
  registerErrorHandling(app);
  await registerOpenApi(app, config.publicUrl);

  const limiter = (perMinute: number) =>
    perMinute > 0 ? createSlidingWindowLimiter({ limit: perMinute }) : undefined;
  const authenticate = createPlatformAuthentication({
    database,
    verify: createCredentialVerifier({
      db: database.db,
      publicUrl: config.publicUrl,
      outsideIssuer: config.outsideIssuer,
    }),
    rateLimiter: deps.rateLimiter ?? limiter(config.rateLimitPerMinute),
    failedAuthLimiter: deps.failedAuthLimiter ?? limiter(config.failedAuthPerMinute),
  });

  const service = createMemoryService({
    database,
    repository: createMemoryRepository(database),
    targets: createMemoryTargets(database),
    cursors: createCursorCodec(await instanceSecret(database.db, 'cursor-hmac')),
    fullLists: createListCache({ maxBytes: LIST_CACHE_BYTES, maxBodyBytes: LIST_CACHE_BODY_BYTES }),
    maxContentChars: config.maxContentChars,
    optimisticConcurrency: config.optimisticConcurrency,
  });
  registerMemoryRoutes(app, {
    service,
    authenticate,
    environment: config.env,
  });

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
  return app;
}
