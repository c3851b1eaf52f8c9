import type { FastifyInstance, FastifyListenOptions } from 'fastify';
import type { Config } from '../src/config.ts';

/**
 * What every bench server process (bench/server.ts serve, bench/floor.ts) shares: how it listens,
 * and a count of the requests it received, printed on SIGUSR2 so that the bench can tell how the
 * kernel spread the load over processes that listen on one port.
 */

/** Starts the line a process prints on SIGUSR2: `bench-served <requests so far>`. */
export const SERVED_PREFIX = 'bench-served ';

/**
 * Counts every request the raw HTTP server receives: one more `request` listener beside
 * Fastify's, a few tens of nanoseconds a request.
 */
export function countRequests(app: FastifyInstance): void {
  let served = 0;
  app.server.on('request', () => {
    served++;
  });
  process.on('SIGUSR2', () => {
    process.stdout.write(`${SERVED_PREFIX}${served}\n`);
  });
}

/**
 * Listens on HOST:PORT. With `reusePort`, the socket has SO_REUSEPORT, so several processes can
 * listen on the same port and Linux spreads incoming connections over them (by a hash of each
 * connection's addresses and ports). Fastify passes the options object to Node's
 * `server.listen` as it is; its type only lacks `reusePort` (Node ≥ 23.1).
 */
export async function listenForBench(
  app: FastifyInstance,
  config: Config,
  reusePort: boolean,
): Promise<void> {
  const options: FastifyListenOptions & { reusePort?: boolean } = {
    port: config.port,
    host: config.host,
  };
  if (reusePort) options.reusePort = true;
  await app.listen(options);
}
