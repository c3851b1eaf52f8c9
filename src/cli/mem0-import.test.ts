/**
 * mem0's files as `mnemo import --format mem0` reads them, on fixtures written from mem0's
 * documented shapes: the open-source get_all (v1.1 and the older list), the platform's get_all
 * (a list, and a page), its export, and records one a line; then what is not a mem0 file.
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { readMem0 } from './mem0-import.ts';

const fixture = (name: string) =>
  readFile(new URL(`./fixtures/mem0/${name}`, import.meta.url), 'utf8');

test('the open-source get_all: results, their text and time to the millisecond with its offset; relations left', async () => {
  const read = readMem0(await fixture('oss-get-all.json'));
  expect(read).toEqual({
    unit: 'record',
    users: new Set(['alex']),
    entries: [
      { line: 1, item: { content: 'Name is Alex', createdAt: '2024-07-20T01:34:56.789-07:00' } },
      {
        line: 2,
        item: {
          content: 'Is a vegetarian and allergic to nuts',
          createdAt: '2024-07-21T09:00:00.5+05:30',
        },
      },
    ],
  });
  expect(readMem0(await fixture('oss-get-all-list.json')).entries).toEqual([
    {
      line: 1,
      item: {
        content: 'Likes to play cricket on weekends',
        createdAt: '2024-06-01T18:20:00.000-07:00',
      },
    },
  ]);
});

test('the platform’s get_all: categories mapped where one means one of the six, the rest dropped; a time without offset read as UTC', async () => {
  const read = readMem0(await fixture('platform-get-all.json'));
  expect(read.entries).toEqual([
    {
      line: 1,
      item: {
        content: 'Does not like spicy food',
        category: 'preference',
        createdAt: '2024-07-26T10:29:36.630-07:00',
      },
    },
    {
      line: 2,
      item: {
        content: 'Works as a software engineer at a fintech startup',
        category: 'identity',
        createdAt: '2024-07-26T10:30:12.100Z',
      },
    },
    {
      line: 3,
      item: { content: 'Planning a trip to Japan next spring', createdAt: '2024-07-27T08:00:00Z' },
    },
    {
      line: 4,
      item: {
        content: 'Sister is called Maya',
        category: 'relationship',
        createdAt: '2024-07-28T12:00:00.000+00:00',
      },
    },
  ]);
  const page = readMem0(await fixture('platform-page.json'));
  expect(page.users).toEqual(new Set(['sam', 'kim']));
  expect(page.entries).toEqual([
    {
      line: 1,
      item: {
        content: 'Prefers concise answers',
        category: 'preference',
        createdAt: '2025-01-10T07:45:00.123-08:00',
      },
    },
    {
      line: 2,
      item: {
        content: 'Training for a marathon in October',
        category: 'goal',
        createdAt: '2025-01-11T07:45:00Z',
      },
    },
  ]);
});

test('the platform’s export: content or text, a record without either reported by its place', async () => {
  expect(readMem0(await fixture('platform-export.json'))).toEqual({
    unit: 'record',
    users: new Set(),
    entries: [
      {
        line: 1,
        item: {
          content: 'Lives in Berlin',
          category: 'identity',
          createdAt: '2025-02-01T10:00:00.000+01:00',
        },
      },
      { line: 2, item: { content: 'Is learning to play the cello' } },
      { line: 3, problem: 'no memory text (memory, text or content)' },
    ],
  });
});

test('records one a line: blank lines passed over, a line that is no JSON reported, a time it cannot read passed on for the server to judge', async () => {
  expect(readMem0(await fixture('records.jsonl'))).toEqual({
    unit: 'line',
    users: new Set(['lee']),
    entries: [
      {
        line: 1,
        item: { content: 'Drinks oat milk', createdAt: '2024-12-24T23:59:59.999-05:00' },
      },
      { line: 3, item: { content: 'Uses vim', createdAt: '2024-12-25T08:00:00Z' } },
      { line: 4, problem: 'not JSON' },
      {
        line: 5,
        item: {
          content: 'Never schedule calls before 10am',
          category: 'constraint',
          createdAt: 'yesterday',
        },
      },
    ],
  });
});

test('what is not a mem0 file is refused, saying what was expected', () => {
  const expected =
    'expected get_all\'s results (a list, or {"results": [...]}), an export ({"memories": [...]}) or their records one a line';
  expect(() => readMem0('{"count": 3}')).toThrow(
    `not a mem0 file (found no list of memories in it): ${expected}`,
  );
  expect(() => readMem0('hello\nworld')).toThrow(
    `not a mem0 file (it is neither JSON nor JSON Lines): ${expected}`,
  );
  expect(readMem0('[1, {"memory": 2}]').entries).toEqual([
    { line: 1, problem: 'not a JSON object' },
    { line: 2, problem: 'no memory text (memory, text or content)' },
  ]);
});
