/**
 * `mnemo export`: a store's memories, or every store of an organization, as JSON lines on
 * standard output, through the server's export endpoints as the person `mnemo login` signed in.
 */
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Args } from './args.ts';
import type { Command } from './command.ts';
import { serverOf, urlOption } from './login.ts';

export const exportMemories: Command = {
  path: ['export'],
  usage: 'mnemo export [--user ID | --project ID | --org ID] [--url URL] > FILE.jsonl',
  summary:
    "write your memories (--user: a member's, --project: a pool's) as JSON lines on standard output, read from one snapshot; --org ID alone: every store of the organization, for its owners (with --user or --project: the organization they are in)",
  options: ['user', 'project', 'org', 'url'],
  prepare(args) {
    if (args.json) args.fail('export does not take --json: its standard output is the memories');
    const target = exportTarget(args);
    const url = urlOption(args);
    return { kind: 'process', run: () => exportTo(process.stdout, url, target) };
  },
};

type ExportTarget =
  | {
      readonly kind: 'store';
      readonly user?: string;
      readonly project?: string;
      readonly orgId?: string;
    }
  | { readonly kind: 'organization'; readonly orgId: string };

function exportTarget(args: Args): ExportTarget {
  const user = args.uuid('user');
  const project = args.uuid('project');
  const orgId = args.uuid('org');
  if (user !== undefined && project !== undefined) {
    args.fail('give --user or --project, not both');
  }
  if (orgId !== undefined && user === undefined && project === undefined) {
    return { kind: 'organization', orgId };
  }
  return {
    kind: 'store',
    ...(user === undefined ? {} : { user }),
    ...(project === undefined ? {} : { project }),
    ...(orgId === undefined ? {} : { orgId }),
  };
}

/** Streams the export to `out` as it arrives; tells on stderr how many memories it held. */
async function exportTo(
  out: NodeJS.WritableStream,
  url: string | undefined,
  target: ExportTarget,
): Promise<void> {
  const server = await serverOf(url, exportMemories.usage);
  const { createApiSession } = await import('./api-session.ts');
  const session = createApiSession({
    publicUrl: server.publicUrl,
    accessToken: () => server.credentials.currentAccessToken(server.issuer),
    orgId: target.orgId,
    command: 'mnemo export',
  });
  const response =
    target.kind === 'organization'
      ? await session.open(`/api/v1/orgs/${target.orgId}/export`)
      : await session.open('/api/v1/memory/export', {
          query: { user: target.user, project: target.project },
        });
  if (!response.body) throw new Error(`${server.publicUrl} sent an export without a body`);
  let lines = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body), counted, out, { end: false });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`the export was cut off after ${count(lines)}: ${reason}`);
  }
  const cursor = response.headers.get('mnemo-cursor');
  process.stderr.write(
    `mnemo: exported ${count(lines)}${cursor ? `; continue with GET /api/v1/memory?since=${cursor}` : ''}\n`,
  );
}

const count = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'memory' : 'memories'}`;
