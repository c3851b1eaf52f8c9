/**
 * SIGTERM on a real server process, on both engines: the listener closes at once (new
 * connections are refused), a request already on its way in still gets its real answer, a
 * request that arrives on an open connection after the signal (a readiness probe, say) gets 503,
 * and once the last answer is out the store is closed and the process exits 0. Engine-specific
 * drains (a request waiting on PostgreSQL when the signal comes) are in
 * db/store-outage.postgres.test.ts; many writers at once, in memory/durability.test.ts.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { readDemo, startDemoServer } from '../testing/demo-server.ts';
import { storesOfThisFile } from '../testing/file-stores.ts';
import { startOAuthServer } from '../testing/oauth-server.ts';
import type { ServerProcess } from '../testing/server-process.ts';

const newStore = storesOfThisFile();
const servers: ServerProcess[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.kill();
});

async function startServer(url: string, port?: number): Promise<ServerProcess> {
  const server = await startDemoServer(url, port);
  servers.push(server);
  return server;
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * An HTTP/1.1 request written by hand, in parts: `start` now, the rest with `finish`. The answer
 * is read until the server closes the connection.
 */
function partialRequest(port: number, start: string) {
  const socket: Socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let received = '';
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  const response = new Promise<RawResponse>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = Number(statusLine.split(' ')[1]);
      if (status) resolve({ status, headers, body: rest.join('\r\n\r\n') });
      else reject(new Error(`no answer: ${JSON.stringify(received)}`));
    });
  });
  socket.write(start);
  return { finish: (rest: string) => socket.write(rest), response };
}

/** Whether a new connection to `port` is accepted or refused now. */
function tryConnect(port: number): Promise<'accepted' | 'refused'> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', () => resolve('refused'));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('SIGTERM: refuses new connections, answers a late request 503, gives the one in flight its real answer, then exits 0', async () => {
  const store = await newStore();
  let server = await startServer(store.url);
  const demo = await readDemo(server);

  const body = JSON.stringify({ content: 'in flight at SIGTERM' });
  const post = partialRequest(
    server.port,
    [
      'POST /api/v1/memory HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${demo.token}`,
      `X-Organization-Id: ${demo.orgId}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body.slice(0, 10),
    ].join('\r\n'),
  );
  // A readiness probe whose request has begun: its connection is not idle, so it stays open.
  const probe = partialRequest(server.port, 'GET /readyz HTTP/1.1\r\n');
  // Both have reached the server before the signal.
  await sleep(300);
  process.kill(server.pid, 'SIGTERM');

  const signalled = Date.now();
  while ((await tryConnect(server.port)) === 'accepted') {
    expect(Date.now() - signalled, 'new connections refused after SIGTERM').toBeLessThan(5000);
    await sleep(20);
  }
  expect(server.hasExited()).toBe(false);

  probe.finish('Host: 127.0.0.1\r\n\r\n');
  const ready = await probe.response;
  expect(ready.status).toBe(503);
  expect(ready.headers['retry-after']).toBe('1');
  expect(ready.headers['cache-control']).toBe('no-store');
  expect(ready.headers.connection).toBe('close');
  expect(JSON.parse(ready.body)).toEqual({ error: 'server is shutting down' });
  expect(server.hasExited()).toBe(false);

  post.finish(body.slice(10));
  const created = await post.response;
  expect(created.status, created.body).toBe(201);
  expect(created.headers.connection).toBe('close');
  const memory = (JSON.parse(created.body) as { memory: { id: string; content: string } }).memory;
  expect(memory.content).toBe('in flight at SIGTERM');

  expect(await server.exited).toEqual({ code: 0, signal: null });

  // The answer was real: the memory is in the store after a restart.
  server = await startServer(store.url, server.port);
  const list = await fetch(`${server.url}/api/v1/memory`, {
    headers: { authorization: `Bearer ${demo.token}`, 'x-organization-id': demo.orgId },
  });
  expect(list.status).toBe(200);
  expect(((await list.json()) as { memories: unknown[] }).memories).toEqual([memory]);
});

test('closing: a connection on which the client has sent nothing does not hold the close open', async () => {
  const server = await startOAuthServer();
  const silent = connect(Number(new URL(server.url).port), '127.0.0.1');
  await new Promise((resolve) => silent.once('connect', resolve));
  const closedBy = new Promise((resolve) => silent.once('close', resolve));
  const started = Date.now();
  await server.close();
  // Node's close would wait for its headers timeout, a minute, for a connection never used.
  expect(Date.now() - started).toBeLessThan(5_000);
  await closedBy;
});
