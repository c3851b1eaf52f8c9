import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real server (PostgreSQL, in the tests that use it): the
 * network between the service and its store, which a test can cut, stall and restore without
 * touching the server itself.
 */
export interface TcpProxy {
  /** The port the proxy listens on, 127.0.0.1. */
  readonly port: number;
  /** `url` (a `postgres://` URL, say) with its host and port replaced by the proxy's. */
  through(url: string): string;
  /**
   * The link goes down: every live connection is reset and new ones are refused (the port stops
   * listening), as when the server's host restarts.
   */
  cut(): Promise<void>;
  /**
   * The link stops carrying bytes, without a reset: live connections hold what they were sent
   * (nothing is lost) and new ones are accepted but not connected onward, as when a network
   * drops every packet. Only timeouts end the wait.
   */
  stall(): void;
  /** The link is back: a cut proxy listens again; a stalled one carries what it held. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Link {
  readonly client: Socket;
  upstream: Socket | undefined;
}

/**
 * Starts a proxy on a free loopback port that forwards every connection to `target`.
 *
 * @example
 * const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
 * const url = proxy.through('postgres://postgres@127.0.0.1:5432/mnemo');
 * await proxy.cut(); // the store is unreachable
 * await proxy.restore(); // and back
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const links = new Set<Link>();
  let state: 'up' | 'cut' | 'stalled' = 'up';

  const drop = (link: Link) => {
    links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  };

  const connectOnward = (link: Link) => {
    const upstream = createConnection(target);
    link.upstream = upstream;
    upstream.setNoDelay(true);
    // Forwarded by hand, not piped: a pipe resumes a paused source on drain, and a stall must
    // hold every byte until restore.
    link.client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => link.client.write(chunk));
    if (state === 'stalled') upstream.pause();
    upstream.on('error', () => drop(link));
    upstream.on('close', () => drop(link));
  };

  const accept = (client: Socket) => {
    const link: Link = { client, upstream: undefined };
    links.add(link);
    client.setNoDelay(true);
    client.on('error', () => drop(link));
    client.on('close', () => drop(link));
    if (state === 'stalled') client.pause();
    else connectOnward(link);
  };

  let server: Server = createServer(accept);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('proxy has no port');
  const port = address.port;

  const stopListening = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
    });

  return {
    port,
    through(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    async cut() {
      state = 'cut';
      const closed = stopListening();
      for (const link of [...links]) {
        links.delete(link);
        // A reset, as a vanished host's network answers, not an orderly close.
        link.client.resetAndDestroy();
        link.upstream?.destroy();
      }
      await closed;
    },
    stall() {
      if (state === 'cut') throw new Error('the proxy is cut: restore it before stalling');
      state = 'stalled';
      for (const link of links) {
        link.client.pause();
        link.upstream?.pause();
      }
    },
    async restore() {
      if (state === 'cut') {
        state = 'up';
        server = createServer(accept);
        server.listen(port, '127.0.0.1');
        await once(server, 'listening');
        return;
      }
      const wasStalled = state === 'stalled';
      state = 'up';
      if (!wasStalled) return;
      for (const link of links) {
        if (link.upstream) {
          link.client.resume();
          link.upstream.resume();
        } else {
          link.client.resume();
          connectOnward(link);
        }
      }
    },
    async close() {
      for (const link of [...links]) drop(link);
      if (state !== 'cut') await stopListening();
      state = 'cut';
    },
  };
}
