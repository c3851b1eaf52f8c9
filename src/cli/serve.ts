import { type Command, onStore } from './command.ts';

export const serve: Command = {
  path: ['serve'],
  usage: 'mnemo serve',
  summary: 'serve everything over HTTP, as `npm start` does',
  options: [],
  prepare: (args) => {
    if (args.json) args.fail('serve does not take --json');
    return { kind: 'process', run: serveFromEnvironment };
  },
};

async function serveFromEnvironment(): Promise<void> {
  // Loaded on demand: the HTTP stack is not needed by any other command.
  const { main } = await import('../main.ts');
  await main();
}

export const migrate: Command = {
  path: ['migrate'],
  usage: 'mnemo migrate',
  summary: 'bring the schema of MNEMO_DATABASE_URL up to date',
  options: [],
  prepare: () =>
    onStore(async ({ database, applied }) => {
      // A migrated store can issue credentials at once, as the server's first start would.
      const { ensureSigningKey } = await import('../credentials/index.ts');
      await ensureSigningKey(database.db);
      return {
        json: { applied },
        text:
          applied.length === 0
            ? 'the schema is up to date'
            : applied.map((name) => `applied ${name}`).join('\n'),
      };
    }),
};
