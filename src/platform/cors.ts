import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The interfaces browser apps of other origins may call: the memory and platform APIs, and the
 * chat interface. Not `/oauth`, whose token and revocation endpoints follow the provider's own
 * rules (a public client's redirect origins), nor the studio, which is same-origin.
 */
const PREFIXES = ['/api/', '/v1/'];

/**
 * What a request may send beyond the CORS-safelisted headers: the credential, JSON bodies, the
 * organization, and what the OpenAI SDKs send (`OpenAI-*`, and `x-stainless-*`, whose names
 * grow with the SDK, so they are matched by prefix).
 */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'x-organization-id',
  'openai-organization',
  'openai-project',
  'openai-beta',
];
const SDK_HEADER = /^x-stainless-[a-z0-9-]+$/;

/** What a client reads from answers beyond the safelisted headers. */
const EXPOSED_HEADERS = [
  'location',
  'retry-after',
  'ratelimit',
  'ratelimit-policy',
  'www-authenticate',
  'content-disposition',
  'x-request-id',
  'mnemo-cursor',
  'x-mnemo-model',
  'x-mnemo-provider',
  'x-mnemo-route',
];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** How long a browser may keep a preflight's answer, seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Lets browser apps of `origins` (exact `Origin` values) call `/api` and `/v1`, preflights
 * included (204, before authentication). Any other origin, and any other path, gets no CORS
 * header at all; a preflight there is an unknown route. Without origins nothing is registered.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]) {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  await app.register(cors, {
    delegator: (request, callback) => callback(null, optionsFor(request, allowed)),
  });
}

function optionsFor(request: FastifyRequest, allowed: ReadonlySet<string>): FastifyCorsOptions {
  const origin = request.headers.origin;
  const path = request.url.split('?', 1)[0] ?? '';
  if (origin === undefined || !allowed.has(origin) || !PREFIXES.some((p) => path.startsWith(p))) {
    return { origin: false };
  }
  const requested = String(request.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  return {
    origin,
    methods: METHODS,
    allowedHeaders: [...ALLOWED_HEADERS, ...requested.filter((name) => SDK_HEADER.test(name))],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  };
}
