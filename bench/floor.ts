/**
 * The floor: what Fastify alone costs on this machine. A bare route at the GET-one path, no
 * hooks, no authentication, no storage, answering with the bytes a real GET-one answered;
 * Fastify is built with the app's options (logger level from the config, body limit, no 503 on
 * close). Run as its own process by bench/run.ts:
 *
 *   node bench/floor.ts <file with the response body> <content-type>
 *
 * Listens on HOST:PORT and prints `bench-floor {"port":…}` on stdout once it does.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';

async function main(): Promise<void> {
  const [bodyFile, contentType] = process.argv.slice(2);
  if (!bodyFile || !contentType) throw new Error('usage: floor.ts <body file> <content-type>');
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
  process.once('SIGTERM', () => {
    app.close().finally(() => process.exit(0));
  });
  await app.listen({ port: config.port, host: config.host });
  process.stdout.write(`bench-floor ${JSON.stringify({ port: config.port })}\n`);
}

if (import.meta.main) await main();
