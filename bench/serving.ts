import type { Server } from 'node:http';
import type { Config } from '../src/config.ts';

/**
 * What every bench server process (bench/server.ts serve, bench/floor.ts) shares: how it listens,
 * and a count of the requests it received, printed on SIGUSR2 so that the bench can tell how the
 * kernel spread the load over processes that listen on one port.
 */

/** Starts the line a process prints on SIGUSR2: `bench-served <requests so far>`. */
export const SERVED_PREFIX = 'bench-served ';

/**
 * Counts every request the HTTP server receives: one more `request` listener beside the
 * framework's (Fastify's `app.server`), a few tens of nanoseconds a request.
 */
export function countRequests(server: Server): void {
  let served = 0;
  server.on('request', () => {
    served++;
  });
  process.on('SIGUSR2', () => {
    process.stdout.write(`${SERVED_PREFIX}${served}\n`);
  });
}

/**
 * Where to listen: HOST:PORT. With `reusePort`, the socket has SO_REUSEPORT, so several
 * processes can listen on the same port and Linux spreads incoming connections over them (by a
 * hash of each connection's addresses and ports). Node's `server.listen` takes it (Node ≥ 23.1);
 * so does Fastify's `listen`, which hands its options to it as they are, though its type lacks
 * the field.
 */
export function listenOptions(config: Config, reusePort: boolean): BenchListen {
  return reusePort
    ? { port: config.port, host: config.host, reusePort }
    : { port: config.port, host: config.host };
}

/** The options of `listen` a bench server passes: both Node's and Fastify's take them. */
export interface BenchListen {
  readonly port: number;
  readonly host: string;
  readonly reusePort?: boolean;
}
