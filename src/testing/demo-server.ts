import { type ServerProcess, startServerProcess } from './server-process.ts';

/** The demo organization and a credential for it, as main.ts announces them on stderr. */
export interface Demo {
  readonly orgId: string;
  readonly token: string;
}

/**
 * A real server process on the store `url` that seeds and announces the demo account, with the
 * rate limit off; on `port` to restart one where clients expect it.
 */
export function startDemoServer(url: string, port?: number): Promise<ServerProcess> {
  return startServerProcess({
    ...(port === undefined ? {} : { port }),
    env: {
      MNEMO_DATABASE_URL: url,
      MNEMO_SEED_DEMO: 'on',
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_RATE_LIMIT_PER_MINUTE: '0',
    },
  });
}

/** Reads the demo account the process announced (waiting for the lines). */
export async function readDemo(server: ServerProcess): Promise<Demo> {
  const org = await server.waitForStderr(/demo organization: ([0-9a-f-]{36})\n/);
  const token = await server.waitForStderr(/platform credential \(24 h\):\n([\w.-]+)\n/);
  return { orgId: org[1] as string, token: token[1] as string };
}
