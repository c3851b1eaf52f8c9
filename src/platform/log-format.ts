import type { FastifyServerOptions } from 'fastify';

/**
 * The process's log: pino's JSON, one object a line, when stdout is a file, a pipe or a
 * collector; lines for a person (time, level, message, the request in a few words) when stdout
 * is a terminal, written by pino-pretty in pino's worker thread. Either way stdout carries only
 * the log, so the banner on stderr is never cut by it.
 */
export function processLogger(
  level: string,
  stdout: { readonly isTTY?: boolean } = process.stdout,
): NonNullable<FastifyServerOptions['logger']> {
  if (stdout.isTTY !== true) return { level };
  return {
    level,
    transport: {
      target: 'pino-pretty',
      options: {
        colorize: true,
        translateTime: 'SYS:HH:MM:ss.l',
        // A request in a few words — its id, method and path, then its status — and any other
        // field of a line after it, on the same line.
        messageFormat:
          '{if reqId}{reqId} {end}{msg}{if req} {req.method} {req.url}{end}{if res} {res.statusCode}{end}',
        ignore: 'pid,hostname,reqId,req,res',
        singleLine: true,
      },
    },
  };
}
