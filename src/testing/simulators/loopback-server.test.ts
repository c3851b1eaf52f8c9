import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type LoopbackServer,
  openEventStream,
  pacedWriter,
  readBody,
  sendJson,
  startLoopbackServer,
} from './loopback-server.ts';

let server: LoopbackServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('loopback server', () => {
  it('answers JSON with its length, headers given winning over the defaults', async () => {
    server = await startLoopbackServer(async (req, res) => {
      const body = await readBody(req);
      sendJson(res, 201, { echo: body }, { 'content-type': 'application/json; charset=UTF-8' });
    });
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const response = await fetch(`${server.origin}/any`, { method: 'POST', body: 'héllo' });
    const text = await response.text();
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toEqual({ echo: 'héllo' });
  });

  it('closes with a request still hanging, ending it', async () => {
    const started = Promise.withResolvers<void>();
    server = await startLoopbackServer(async () => {
      started.resolve();
    });
    const hanging = fetch(`${server.origin}/hang`).catch((error: unknown) => error);
    await started.promise;

    await server.close();
    server = undefined;
    expect(await hanging).toBeInstanceOf(Error);
  });

  it('stops writing a stream once the client has gone', async () => {
    const failed = Promise.withResolvers<unknown>();
    let written = 0;
    server = await startLoopbackServer(async (_req, res: ServerResponse) => {
      openEventStream(res);
      const write = pacedWriter(5);
      try {
        for (;;) {
          await write(res, `data: ${written++}\n\n`);
        }
      } catch (error) {
        failed.resolve(error);
        throw error;
      }
    });
    const controller = new AbortController();
    const response = await fetch(`${server.origin}/stream`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();

    expect(await failed.promise).toEqual(new Error('client went away'));
    expect(written).toBeGreaterThan(0);
  });
});
