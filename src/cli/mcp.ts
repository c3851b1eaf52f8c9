import type { Command } from './command.ts';
import { serverOf, urlOption } from './login.ts';

export const mcp: Command = {
  path: ['mcp'],
  usage: 'mnemo mcp [--org ID] [--url URL]',
  summary:
    'serve the memory tools to an MCP client over stdio, as the user mnemo login signed in at URL (default MNEMO_PUBLIC_URL, else the server last signed in to), in organization ID (needed only by a member of several)',
  options: ['org', 'url'],
  prepare(args) {
    if (args.json) args.fail('mcp does not take --json: its standard output is the MCP protocol');
    const orgId = args.uuid('org');
    const url = urlOption(args);
    return { kind: 'process', run: () => serveOverStdio(url, orgId) };
  },
};

/**
 * Serves until the client closes standard input. Standard output carries the protocol and
 * nothing else; what goes wrong outside a tool's answer is told on standard error.
 */
async function serveOverStdio(url: string | undefined, orgId: string | undefined): Promise<void> {
  const server = await serverOf(url, mcp.usage);
  // Loaded here: no other command needs the MCP SDK.
  const [{ serveStdio }, { createMemoryToolsServer }, { createRestBackend }] = await Promise.all([
    import('@modelcontextprotocol/server/stdio'),
    import('../mcp/index.ts'),
    import('./mcp-backend.ts'),
  ]);
  const backend = createRestBackend({
    publicUrl: server.publicUrl,
    accessToken: () => server.credentials.currentAccessToken(server.issuer),
    orgId,
  });
  const warn = (what: string, error: unknown) =>
    process.stderr.write(`mnemo mcp: ${what}: ${error instanceof Error ? error.message : error}\n`);
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  const connection = serveStdio(
    () =>
      createMemoryToolsServer(backend, {
        onUnexpected: (error) => warn('a tool failed', error),
      }),
    { onerror: (error) => warn('protocol error', error) },
  );
  await closed;
  await connection.close();
}
