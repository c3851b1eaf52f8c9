/**
 * Loaded into Portkey's gateway process with `--import` (bench/gateway/processes.ts):
 *
 * - Loopback only. Portkey's start-server.js calls `serve({ fetch, port })` of
 *   @hono/node-server, which calls `server.listen(port, undefined, …)`: every interface, with no
 *   option or variable to name one. Here a listen that names no host gets 127.0.0.1, as every
 *   other bench process; the bench then checks /proc/net/tcp{,6} before sending anything.
 * - A clean exit on SIGTERM, so that `--cpu-prof` (BENCH_CPU_PROF) is written.
 */
import { Server } from 'node:net';
import { withLoopbackHost } from './loopback.ts';

const listen = Server.prototype.listen as (this: Server, ...args: unknown[]) => Server;

Server.prototype.listen = function (this: Server, ...args: unknown[]): Server {
  return listen.apply(this, withLoopbackHost(args));
} as typeof Server.prototype.listen;

process.once('SIGTERM', () => process.exit(0));
