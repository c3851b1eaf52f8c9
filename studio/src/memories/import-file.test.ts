import { expect, test } from 'vitest';
import { readImportFile } from './import-file.ts';

test('JSON Lines: import items and export lines, their id and updatedAt left; blank lines passed over; what is no memory set aside by line', () => {
  const text = [
    '{"content":"Likes tea","category":"preference","createdAt":"2024-07-20T10:00:00Z"}',
    '',
    '{"id":"01a2","content":"Runs on Sundays","createdAt":"2023-01-02T03:04:05.678Z","updatedAt":"2023-05-06T07:08:09.000Z"}',
    'not json',
    '[1]',
    '{"text":"no content here"}',
    '{"content":"Likes tea","mood":"calm"}',
    '{"store":{"user":"9a0e"},"memory":{"id":"7c41","content":"Lives in Porto","createdAt":"2022-01-01T00:00:00.000Z","updatedAt":"…"}}',
    '{"content":"   "}',
  ].join('\r\n');
  expect(readImportFile(text)).toEqual({
    memories: [
      {
        line: 1,
        item: { content: 'Likes tea', category: 'preference', createdAt: '2024-07-20T10:00:00Z' },
      },
      { line: 3, item: { content: 'Runs on Sundays', createdAt: '2023-01-02T03:04:05.678Z' } },
      { line: 7, item: { content: 'Likes tea', mood: 'calm' } },
      { line: 8, item: { content: 'Lives in Porto', createdAt: '2022-01-01T00:00:00.000Z' } },
      { line: 9, item: { content: '   ' } },
    ],
    unreadable: [
      { line: 4, problem: 'not JSON' },
      { line: 5, problem: 'not a JSON object' },
      { line: 6, problem: 'no "content"' },
    ],
  });
});

test('one JSON array: each item by its position; an array that does not parse is one problem', () => {
  expect(readImportFile('  [{"content":"A"}, 3, {"content":"B","category":"goal"}]')).toEqual({
    memories: [
      { line: 1, item: { content: 'A' } },
      { line: 3, item: { content: 'B', category: 'goal' } },
    ],
    unreadable: [{ line: 2, problem: 'not a JSON object' }],
  });
  expect(readImportFile('[{"content":"A"}')).toEqual({
    memories: [],
    unreadable: [{ line: 1, problem: 'not JSON' }],
  });
});
