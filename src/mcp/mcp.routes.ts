import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { allows } from '../credentials/index.ts';
import { insufficientMcpScope } from '../oauth/index.ts';
import { forbidden } from '../platform/errors.ts';
import { requireJsonBody } from '../platform/json-body.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import type { Caller } from '../tenancy/index.ts';
import { createMemoryToolsServer, type MemoryToolsBackend, WRITE_TOOLS } from './memory-tools.ts';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface McpRoutesDeps {
  /** The credential, rate and membership checks of `/mcp`; sets `request.caller`. */
  readonly authenticate: Hook;
  /** What the tools do for one caller. */
  readonly backendFor: (caller: Caller) => MemoryToolsBackend;
  /** The origins a browser may call from: the service's own, and MNEMO_CORS_ORIGINS. */
  readonly allowedOrigins: readonly string[];
  /** MNEMO_PUBLIC_URL: a refusal's challenge names the server's metadata under it. */
  readonly publicUrl: string;
}

const URL = '/mcp';
/** What the Streamable HTTP transport serves: POST, and GET and DELETE of the 2025 sessions. */
const METHODS = ['GET', 'POST', 'DELETE'] as const;

/**
 * `/mcp`, the MCP server over Streamable HTTP: the SDK's handler, stateless (a fresh server per
 * request, so any process behind a load balancer serves any request), both protocol eras. In
 * front of it, in order: the origin (MCP: servers MUST validate `Origin`, against DNS
 * rebinding), the credential, rate and membership (401, 429, 403), `memory:read` for anything
 * and `memory:write` for a call of a tool that writes (403 `insufficient_scope`, MCP's step-up
 * authorization), JSON bodies of 64 KiB at most (415, 413). Those refusals are `{"error"}`
 * like the API's; what the protocol refuses is the SDK's, in JSON-RPC.
 */
export function registerMcpRoutes(parent: FastifyInstance, deps: McpRoutesDeps): void {
  const allowedOrigins = new Set(deps.allowedOrigins);
  /** The caller of each request, handed to the server factory through the request's AuthInfo. */
  const callers = new WeakMap<AuthInfo, Caller>();
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const caller = authInfo === undefined ? undefined : callers.get(authInfo);
      if (!caller) throw new Error('an MCP request reached the server unauthenticated');
      return createMemoryToolsServer(deps.backendFor(caller), {
        onUnexpected: (error) => parent.log.error({ err: error }, 'an MCP tool failed'),
      });
    },
    {
      legacy: 'stateless',
      // Reporting only: what it reports is answered already (mostly a client's mistake).
      onerror: (error) => parent.log.info({ err: error }, 'MCP request refused'),
    },
  );
  parent.addHook('onClose', () => handler.close());

  parent.register(async (app) => {
    app.addHook('onRequest', (request, _reply, done) => {
      const origin = request.headers.origin;
      done(
        origin === undefined || allowedOrigins.has(origin)
          ? undefined
          : forbidden(`requests from the origin ${origin} are not allowed`),
      );
    });
    app.addHook('onRequest', deps.authenticate);
    app.addHook('preValidation', requireJsonBody);
    app.addHook('preHandler', (request, _reply, done) => {
      const writes = callsWriteTool(request.body);
      done(
        writes && !allows(request.account, 'memory:write')
          ? insufficientMcpScope(deps.publicUrl, 'memory:write')
          : undefined,
      );
    });

    app.route({
      method: [...METHODS],
      url: URL,
      schema: { hide: true },
      handler: async (request, reply) => {
        const authInfo: AuthInfo = {
          token: '',
          clientId: '',
          scopes: request.caller.scopes === undefined ? [] : [...request.caller.scopes],
        };
        callers.set(authInfo, request.caller);
        // The exchange ends when the client goes away before its answer is complete.
        const gone = new AbortController();
        reply.raw.once('close', () => gone.abort());
        const response = await handler.fetch(webRequest(request, gone.signal), {
          authInfo,
          ...(request.body === undefined ? {} : { parsedBody: request.body }),
        });
        return reply.send(response);
      },
    });
  });
  registerMethodNotAllowed(parent, URL, [...METHODS]);
}

/** Whether a JSON-RPC message (or batch) calls a tool that changes memories. */
function callsWriteTool(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    if (typeof message !== 'object' || message === null) return false;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    return (
      method === 'tools/call' && typeof params?.name === 'string' && WRITE_TOOLS.has(params.name)
    );
  });
}

/**
 * The request as the SDK's fetch face takes it: method, URL and headers; the body, read and
 * parsed by Fastify already, is handed over beside it.
 */
function webRequest(request: FastifyRequest, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const url = `${request.protocol}://${request.host}${request.url}`;
  return new Request(url, { method: request.method, headers, signal });
}
