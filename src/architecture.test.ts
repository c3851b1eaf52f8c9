/**
 * The lines of docs/design.md §6 that no import may cross, checked over the real import graph of
 * the shipped code (tests and test support are left out: they may reach anything they exercise).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** One import of one module: paths relative to the repository, with `/` separators. */
interface Edge {
  readonly from: string;
  readonly to: string;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .filter((file) => !/\.test\.tsx?$|\.d\.ts$/.test(file) && !file.startsWith('src/testing/'));
}

/** Every relative import (static, `import type` and dynamic `import()` alike) of the shipped code. */
function importGraph(files: readonly string[]): Edge[] {
  return files.flatMap((from) =>
    ts
      .preProcessFile(readFileSync(join(ROOT, from), 'utf8'), true, true)
      .importedFiles.map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({
        from,
        to: relative(ROOT, resolve(ROOT, dirname(from), specifier))
          .split('\\')
          .join('/'),
      })),
  );
}

const under = (folder: string) => (file: string) => file.startsWith(`${folder}/`);
const inSrc = (file: string) => file.startsWith('src/');
/** The part a module belongs to: its first folder under src/ (`src/gateway/responses/…`: gateway). */
const part = (file: string) => file.split('/').slice(0, 2).join('/');
/** What is not a feature: the ground floor, and packages. */
const groundFloor = (file: string) => under('src/platform')(file) || under('src/db')(file);

interface Rule {
  readonly name: string;
  readonly applies: (from: string) => boolean;
  readonly forbids: (to: string, from: string) => boolean;
}

const PROVIDER_ADAPTER = /^src\/gateway\/providers\/[^/]+\//;

/** The contract an adapter may see: provider.ts and, transitively, what it imports. */
function providerContract(edges: readonly Edge[]): Set<string> {
  const contract = new Set(['src/gateway/provider.ts']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const { from, to } of edges) {
      if (contract.has(from) && !contract.has(to)) {
        contract.add(to);
        grew = true;
      }
    }
  }
  return contract;
}

function rules(edges: readonly Edge[]): Rule[] {
  const contract = providerContract(edges);
  return [
    {
      name: 'the platform imports no feature',
      applies: under('src/platform'),
      forbids: (to) => inSrc(to) && !groundFloor(to),
    },
    {
      name: 'the database layer imports no feature',
      applies: under('src/db'),
      forbids: (to) => inSrc(to) && !groundFloor(to),
    },
    {
      name: 'the configuration is a leaf',
      applies: (from) => from === 'src/config.ts',
      forbids: (to) => inSrc(to) && !groundFloor(to),
    },
    {
      name: 'memory does not reach the gateway',
      applies: under('src/memory'),
      forbids: under('src/gateway'),
    },
    {
      // Memory in chat calls goes through the gateway's port (gateway/memory/memory-port.ts),
      // which app.ts fills; the gateway implements memory's embedder port, the one file it sees.
      name: 'the gateway reaches memory only through ports',
      applies: under('src/gateway'),
      forbids: (to) => under('src/memory')(to) && to !== 'src/memory/embedder.ts',
    },
    {
      name: 'tenancy does not reach memory',
      applies: under('src/orgs'),
      forbids: under('src/memory'),
    },
    {
      name: 'a provider adapter sees only its contract and the shared pieces of providers/',
      applies: (from) => PROVIDER_ADAPTER.test(from),
      forbids: (to, from) =>
        under('src/gateway')(to) &&
        !contract.has(to) &&
        !/^src\/gateway\/providers\/[^/]+$/.test(to) &&
        // Its own folder.
        !to.startsWith(from.slice(0, from.lastIndexOf('/') + 1)),
    },
    {
      // A part may split its routes over several modules; another part's routes are wired only
      // by the composition root, and no service or repository reaches up to a route.
      name: 'routes are wired by the composition root or their own part',
      applies: (from) => from !== 'src/app.ts',
      forbids: (to, from) =>
        /\.routes\.ts$/.test(to) && (part(to) !== part(from) || !/\.routes\.ts$/.test(from)),
    },
    {
      // The MCP server is one more door to the services: built by the composition root (/mcp)
      // and the CLI (`mnemo mcp`), and reaching the features through their services only.
      name: 'only the composition root and the CLI reach the MCP server',
      applies: (from) =>
        from !== 'src/app.ts' && !under('src/cli')(from) && !under('src/mcp')(from),
      forbids: under('src/mcp'),
    },
    {
      name: 'the MCP server reaches features through their services',
      applies: under('src/mcp'),
      forbids: (to) =>
        /\.repository\.ts$/.test(to) || under('src/gateway')(to) || under('src/oauth')(to),
    },
    {
      name: 'the studio speaks to the server only over HTTP',
      applies: under('studio/src'),
      forbids: (to) => !under('studio')(to),
    },
  ];
}

function violations(edges: readonly Edge[]): string[] {
  const all = rules(edges);
  return edges.flatMap(({ from, to }) =>
    all
      .filter((rule) => rule.applies(from) && rule.forbids(to, from))
      .map((rule) => `${rule.name}: ${from} imports ${to}`),
  );
}

describe('the import graph', () => {
  const graph = importGraph([...sourceFiles('src'), ...sourceFiles('studio/src')]);

  test('is read from the real files', () => {
    // A graph read wrongly (no files, no edges) would pass every rule.
    expect(graph.length).toBeGreaterThan(300);
    expect(graph).toContainEqual({ from: 'src/app.ts', to: 'src/memory/memory.routes.ts' });
  });

  test('crosses none of the lines of docs/design.md §6', () => {
    expect(violations(graph)).toEqual([]);
  });

  test('each rule catches an import across its line', () => {
    const crossings: Edge[] = [
      { from: 'src/platform/errors.ts', to: 'src/orgs/orgs.repository.ts' },
      { from: 'src/db/database.ts', to: 'src/memory/memory.repository.ts' },
      { from: 'src/config.ts', to: 'src/gateway/catalog.ts' },
      { from: 'src/memory/memory.service.ts', to: 'src/gateway/catalog.ts' },
      { from: 'src/gateway/memory/memory-calls.ts', to: 'src/memory/chat-memory.ts' },
      { from: 'src/orgs/orgs.service.ts', to: 'src/memory/memory.service.ts' },
      { from: 'src/gateway/providers/openai/openai.provider.ts', to: 'src/gateway/router.ts' },
      { from: 'src/orgs/management.ts', to: 'src/projects/projects.routes.ts' },
      { from: 'src/memory/memory.service.ts', to: 'src/mcp/memory-tools.ts' },
      { from: 'src/mcp/service-backend.ts', to: 'src/memory/memory.repository.ts' },
      { from: 'studio/src/app/app.tsx', to: 'src/db/tables.ts' },
    ];
    expect(violations(crossings).map((line) => line.slice(0, line.indexOf(':')))).toEqual(
      rules([]).map((rule) => rule.name),
    );
    // What the lines allow.
    expect(
      violations([
        { from: 'src/platform/error-handler.ts', to: 'src/db/availability.ts' },
        { from: 'src/gateway/providers/openai/openai.provider.ts', to: 'src/gateway/provider.ts' },
        {
          from: 'src/gateway/providers/openai/openai.stream.ts',
          to: 'src/gateway/providers/openai/openai.errors.ts',
        },
        {
          from: 'src/gateway/providers/gemini/gemini.provider.ts',
          to: 'src/gateway/providers/sse-reader.ts',
        },
        { from: 'src/app.ts', to: 'src/memory/memory.routes.ts' },
        { from: 'src/cli/mcp.ts', to: 'src/mcp/memory-tools.ts' },
        { from: 'src/mcp/service-backend.ts', to: 'src/memory/memory.service.ts' },
        { from: 'src/gateway/responses/responses.routes.ts', to: 'src/gateway/chat.routes.ts' },
      ]),
    ).toEqual([]);
  });
});
