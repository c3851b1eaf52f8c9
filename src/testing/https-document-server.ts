/**
 * An https server on loopback for documents the authorization server fetches (client ID
 * metadata documents), with a certificate made for it at start (openssl) that this process
 * then trusts: `tls.setDefaultCACertificates` adds it to the CAs every TLS client of the
 * process uses, fetch included. Only a test process does this.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

export interface HttpsDocumentServer {
  /** `https://127.0.0.1:{port}` */
  readonly origin: string;
  /** Serves `body` at `path` (JSON when an object), after `delayMs` when given. */
  serve(
    path: string,
    body: unknown,
    options?: { delayMs?: number; headers?: Record<string, string> },
  ): string;
  /** How often each path was fetched. */
  readonly fetches: Map<string, number>;
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 and localhost, valid for a day. */
function makeCertificate(): { key: string; cert: string } {
  const directory = mkdtempSync(join(tmpdir(), 'mnemo-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        join(directory, 'key.pem'),
        '-out',
        join(directory, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=mnemo test documents',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(directory, 'key.pem'), 'utf8'),
      cert: readFileSync(join(directory, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export async function startHttpsDocumentServer(): Promise<HttpsDocumentServer> {
  const { key, cert } = makeCertificate();
  setDefaultCACertificates([...getCACertificates('default'), cert]);
  const routes = new Map<
    string,
    { body: string; delayMs: number; headers: Record<string, string> }
  >();
  const fetches = new Map<string, number>();
  const pending = new Set<ServerResponse>();
  const server = createServer({ key, cert }, (request, response) => {
    const path = request.url ?? '/';
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    pending.add(response);
    setTimeout(() => {
      pending.delete(response);
      if (response.destroyed) return;
      response
        .writeHead(200, { 'content-type': 'application/json', ...route.headers })
        .end(route.body);
    }, route.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const origin = `https://127.0.0.1:${port}`;
  return {
    origin,
    fetches,
    serve(path, body, options = {}) {
      routes.set(path, {
        body: typeof body === 'string' ? body : JSON.stringify(body),
        delayMs: options.delayMs ?? 0,
        headers: options.headers ?? {},
      });
      return `${origin}${path}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of pending) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
