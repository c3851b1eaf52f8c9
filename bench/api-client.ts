import type { BenchSeed, BenchStore } from './server.ts';

/** A started bench server (bench/server.ts: one process or several on one port), and its store. */
export interface MnemoServer {
  readonly origin: string;
  readonly info: BenchSeed;
}

export interface ApiResponse {
  readonly status: number;
  readonly contentType: string;
  readonly bytes: Buffer;
  json(): unknown;
}

/** The headers every memory request of `store` carries: its credential and organization. */
export function storeHeaders(server: MnemoServer, store: BenchStore): Record<string, string> {
  return {
    authorization: `Bearer ${store.token}`,
    'x-organization-id': server.info.orgId,
  };
}

export function storeOf(server: MnemoServer, name: string): BenchStore {
  const store = server.info.stores[name];
  if (!store) throw new Error(`bench server has no store ${name}`);
  return store;
}

/** One request over fetch, as the member who owns `store`: for setup and checks, not for load. */
export async function call(
  server: MnemoServer,
  store: BenchStore,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResponse> {
  const response = await fetch(`${server.origin}${path}`, {
    method,
    headers: {
      ...storeHeaders(server, store),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    bytes,
    json: () => JSON.parse(bytes.toString('utf8')),
  };
}

/** Like `call`, but anything other than `status` is a failed setup. */
export async function expectCall(
  status: number,
  ...args: Parameters<typeof call>
): Promise<ApiResponse> {
  const response = await call(...args);
  if (response.status !== status) {
    const [, , method, path] = args;
    throw new Error(
      `${method} ${path}: expected ${status}, got ${response.status} ${response.bytes.toString('utf8').slice(0, 300)}`,
    );
  }
  return response;
}

/** The parts of a list response the checks read. */
export interface ListBody {
  readonly memories: ReadonlyArray<{ readonly id: string }>;
  readonly deleted?: readonly string[];
  readonly cursor: string;
}

export async function listMemories(
  server: MnemoServer,
  store: BenchStore,
  since?: string,
): Promise<ListBody> {
  const query = since === undefined ? '' : `?since=${encodeURIComponent(since)}`;
  const response = await expectCall(200, server, store, 'GET', `/api/v1/memory${query}`);
  return response.json() as ListBody;
}
