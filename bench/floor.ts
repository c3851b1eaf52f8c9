/**
 * The floors: what an HTTP server alone costs on this machine, answering the GET-one path with
 * the bytes and content-type a real GET one answered; no hooks, no authentication, no storage.
 * Two kinds, each run as processes of their own by bench/run.ts:
 *
 * - `fastify`: a bare route, Fastify built with the app's options (logger level from the config,
 *   body limit, no 503 on close): what the framework mnemo is written on costs.
 * - `http`: `node:http` and no framework: what Node itself costs, which no server on it passes.
 *
 *   node bench/floor.ts fastify|http <file with the response body> <content-type> [--reuse-port]
 *
 * Each answers `/healthz`, listens on HOST:PORT (with `--reuse-port`, beside the other floor
 * processes of a setup of several processes: serving.ts) and prints `FLOOR_PREFIX` +
 * `{"port":…}` on stdout once it does. Counts its requests as the mnemo servers do, so that
 * all pay for the count.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import Fastify from 'fastify';
import { type Config, loadConfig } from '../src/config.ts';
import { type BenchListen, countRequests, listenOptions } from './serving.ts';

export const FLOOR_KINDS = ['fastify', 'http'] as const;
export type FloorKind = (typeof FLOOR_KINDS)[number];

/** Starts the line a floor prints once it listens. */
export const FLOOR_PREFIX = 'bench-floor ';

/** The GET-one path without its id: `/api/v1/memory/{id}`. */
const MEMORY_PATH = '/api/v1/memory/';
const HEALTH_PATH = '/healthz';
const JSON_TYPE = 'application/json; charset=utf-8';

/** The response a floor answers every GET one with. */
interface Answer {
  readonly body: Buffer;
  readonly contentType: string;
}

interface Floor {
  readonly server: Server;
  listen(options: BenchListen): Promise<unknown>;
  close(): Promise<void>;
}

function fastifyFloor(answer: Answer, config: Config): Floor {
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: 64 * 1024,
    return503OnClosing: false,
  });
  app.get(`${MEMORY_PATH}:id`, (_request, reply) => {
    reply.header('content-type', answer.contentType).send(answer.body);
  });
  app.get(HEALTH_PATH, () => ({ ok: true }));
  return { server: app.server, listen: (options) => app.listen(options), close: () => app.close() };
}

/** A GET-one path: the memory path and one segment after it, whatever the query. */
function isGetOne(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  const id = path.slice(MEMORY_PATH.length);
  return path.startsWith(MEMORY_PATH) && id.length > 0 && !id.includes('/');
}

/** What Fastify answers for `{ ok: true }`: both floors answer /healthz alike. */
const HEALTH: Answer = { body: Buffer.from(JSON.stringify({ ok: true })), contentType: JSON_TYPE };
const NOT_FOUND: Answer = { body: Buffer.alloc(0), contentType: JSON_TYPE };

/** What the node:http floor answers `request` with: the GET one, /healthz, or a 404. */
function route(request: IncomingMessage, answer: Answer): readonly [number, Answer] {
  if (request.method !== 'GET') return [404, NOT_FOUND];
  const url = request.url ?? '';
  if (isGetOne(url)) return [200, answer];
  if (url === HEALTH_PATH) return [200, HEALTH];
  return [404, NOT_FOUND];
}

function httpFloor(answer: Answer): Floor {
  const server = createServer((request, response) => {
    const [status, { body, contentType }] = route(request, answer);
    // A length, not chunked encoding: the same framing as Fastify's answer.
    response.writeHead(status, { 'content-type': contentType, 'content-length': body.length });
    response.end(body);
  });
  return {
    server,
    listen: (options) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options, resolve);
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const FLOORS: Record<FloorKind, (answer: Answer, config: Config) => Floor> = {
  fastify: fastifyFloor,
  http: httpFloor,
};

async function main(): Promise<void> {
  const [name, bodyFile, contentType, ...flags] = process.argv.slice(2);
  const kind = FLOOR_KINDS.find((known) => known === name);
  if (!kind || !bodyFile || !contentType || flags.some((flag) => flag !== '--reuse-port')) {
    throw new Error('usage: floor.ts fastify|http <body file> <content-type> [--reuse-port]');
  }
  const answer = { body: readFileSync(bodyFile), contentType };
  const config = loadConfig();
  const floor = FLOORS[kind](answer, config);
  countRequests(floor.server);
  process.once('SIGTERM', () => {
    floor.close().finally(() => process.exit(0));
  });
  await floor.listen(listenOptions(config, flags.includes('--reuse-port')));
  process.stdout.write(`${FLOOR_PREFIX}${JSON.stringify({ port: config.port })}\n`);
}

if (import.meta.main) await main();
