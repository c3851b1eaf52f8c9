#!/usr/bin/env node
// Plain JavaScript on purpose: it must run, and explain itself, on a Node too old for the
// TypeScript sources (Node 24 runs them by type stripping).
import module from 'node:module';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `mnemo needs Node 24 or later, not ${process.version}: run it as \`npx mnemo\` or through the npm scripts, which use the Node 24 this project pins\n`,
  );
  process.exit(2);
}
// Each command is a short process that loads a few hundred modules; V8's code cache on disk
// saves about a quarter of its start-up.
module.enableCompileCache();
import('../src/cli/main.ts').then(async ({ runCli }) => {
  process.exitCode = await runCli(process.argv.slice(2));
});
