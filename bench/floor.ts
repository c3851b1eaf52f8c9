/**
 * The floor: what Fastify alone costs on this machine. A bare route at the GET-one path, no
 * hooks, no authentication, no storage, answering with the bytes a real GET-one answered;
 * Fastify is built with the app's options (logger level from the config, body limit, no 503 on
 * close). Run as its own process by bench/run.ts:
 *
 *   node bench/floor.ts <file with the response body> <content-type> [--reuse-port]
 *
 * Listens on HOST:PORT (with `--reuse-port`, beside the other floor processes of a setup of
 * several processes: serving.ts) and prints `bench-floor {"port":…}` on stdout once it does.
 * Counts its requests as the mnemo servers do, so that both pay for the count.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import { countRequests, listenForBench } from './serving.ts';

async function main(): Promise<void> {
  const [bodyFile, contentType, ...flags] = process.argv.slice(2);
  if (!bodyFile || !contentType || flags.some((flag) => flag !== '--reuse-port')) {
    throw new Error('usage: floor.ts <body file> <content-type> [--reuse-port]');
  }
  const body = readFileSync(bodyFile);
  const config = loadConfig();
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: 64 * 1024,
    return503OnClosing: false,
  });
  app.get('/api/v1/memory/:id', (_request, reply) => {
    reply.header('content-type', contentType).send(body);
  });
  app.get('/healthz', () => ({ ok: true }));
  countRequests(app);
  process.once('SIGTERM', () => {
    app.close().finally(() => process.exit(0));
  });
  await listenForBench(app, config, flags.includes('--reuse-port'));
  process.stdout.write(`bench-floor ${JSON.stringify({ port: config.port })}\n`);
}

if (import.meta.main) await main();
