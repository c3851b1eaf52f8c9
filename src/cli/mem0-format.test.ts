/**
 * mem0's files read as import items, on fixtures written from mem0's documented shapes: the
 * open-source get_all (v1.1 with relations, v1.0's bare list), the platform's get_all (a list
 * with categories, a page), its export (get_memory_export's answer, and its data alone) and
 * records one a line; then the times, the categories, and what is no mem0 file.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { describe, expect, test } from 'vitest';
import {
  type Mem0Entry,
  NotMem0File,
  positionText,
  readMem0,
  readMem0Line,
  readMem0Lines,
} from './mem0-format.ts';

const fixtureUrl = (name: string) => new URL(`./fixtures/mem0/${name}`, import.meta.url);
const fixture = (name: string) => readFile(fixtureUrl(name), 'utf8');

test('a result on one line is placed by its line and its record (the TSDoc example)', () => {
  expect(readMem0('{"results": [{"memory": "Likes tea", "user_id": "alex"}]}')).toEqual({
    items: [{ at: { line: 1, record: 1 }, item: { content: 'Likes tea' }, userId: 'alex' }],
    skipped: [],
  });
});

describe('the open-source get_all', () => {
  test('v1.1: the results, trimmed, each time cut to the millisecond with its offset; relations left behind', async () => {
    expect(readMem0(await fixture('oss-get-all-v1.1.json'))).toEqual({
      items: [
        {
          at: { record: 1 },
          item: { content: 'Name is Alex', createdAt: '2024-07-20T10:15:30.123-07:00' },
          userId: 'alex',
        },
        {
          at: { record: 2 },
          item: {
            content: 'Is vegetarian and allergic to nuts',
            createdAt: '2025-03-02T08:00:00.999+00:00',
          },
          userId: 'alex',
        },
      ],
      skipped: [],
    });
  });

  test('v1.0: the bare list of records', async () => {
    expect(readMem0(await fixture('oss-get-all-v1.0.json'))).toEqual({
      items: [
        {
          at: { record: 1 },
          item: {
            content: 'Likes to play cricket on weekends',
            createdAt: '2024-06-01T18:20:00.000-07:00',
          },
          userId: 'alice',
        },
        {
          at: { record: 2 },
          item: {
            content: 'Is training for a half marathon in October',
            createdAt: '2024-06-02T06:05:09.500-07:00',
          },
          userId: 'alice',
        },
      ],
      skipped: [],
    });
  });
});

describe('the platform’s get_all', () => {
  test('a list: the first category that means one of the six, none otherwise; a time without offset is UTC', async () => {
    const read = readMem0(await fixture('platform-v2-list.json'));
    expect(read.skipped).toEqual([]);
    expect(read.items.map(({ at, item, userId }) => ({ at, userId, ...item }))).toEqual([
      {
        at: { record: 1 },
        userId: 'alex',
        content: 'Does not like spicy food',
        category: 'preference',
        createdAt: '2024-07-25T23:57:00.108-07:00',
      },
      {
        at: { record: 2 },
        userId: 'alex',
        content: 'Works as a software engineer at a fintech startup',
        category: 'identity',
        createdAt: '2024-07-26T10:30:12.100Z',
      },
      {
        at: { record: 3 },
        userId: 'alex',
        content: 'Planning a trip to Japan next spring',
        createdAt: '2024-07-27T08:00:00.000Z',
      },
      {
        at: { record: 4 },
        userId: 'alex',
        content: 'Sister Maya lives in Lisbon',
        category: 'relationship',
        createdAt: '2024-07-28T12:00:00.000Z',
      },
      {
        at: { record: 5 },
        userId: 'alex',
        content: 'Wants to run a marathon before turning forty',
        category: 'goal',
        createdAt: '2024-07-29T07:45:00.500+05:30',
      },
      {
        at: { record: 6 },
        userId: 'alex',
        content: 'Just added, not categorised yet',
        createdAt: '2024-07-30T09:00:00.000-07:00',
      },
    ]);
  });

  test('a page: its results, each with its own mem0 user', async () => {
    expect(readMem0(await fixture('platform-v2-page.json'))).toEqual({
      items: [
        {
          at: { record: 1 },
          item: {
            content: 'Prefers concise answers',
            category: 'preference',
            createdAt: '2025-01-10T07:45:00.123-08:00',
          },
          userId: 'sam',
        },
        {
          at: { record: 2 },
          item: {
            content: 'Never book meetings on Fridays',
            category: 'constraint',
            createdAt: '2025-01-11T07:45:00.000Z',
          },
          userId: 'kim',
        },
      ],
      skipped: [],
    });
  });

  test('{"results", "total"}, as the v2 reference shows it', () => {
    const text = JSON.stringify(
      {
        results: [
          {
            id: 'f4cb',
            memory: 'Prefers vegetarian restaurants',
            created_at: '2024-07-05T15:30:00Z',
          },
        ],
        total: 1,
      },
      null,
      2,
    );
    expect(readMem0(text).items).toEqual([
      {
        at: { record: 1 },
        item: { content: 'Prefers vegetarian restaurants', createdAt: '2024-07-05T15:30:00.000Z' },
      },
    ]);
  });
});

describe('the platform’s export', () => {
  test('get_memory_export’s answer: its data’s memories, as memory, text or content; one with none reported by its place', async () => {
    expect(readMem0(await fixture('platform-export-data.json'))).toEqual({
      items: [
        {
          at: { record: 1 },
          item: {
            content: 'Lives in Berlin',
            category: 'identity',
            createdAt: '2025-02-01T10:00:00.000+01:00',
          },
        },
        { at: { record: 2 }, item: { content: 'Is learning to play the cello' } },
      ],
      skipped: [{ at: { record: 3 }, reason: 'no memory text (memory, text or content)' }],
    });
  });

  test('its data alone: {"memories": [...]}; a category given as one string; a null time is none', async () => {
    expect(readMem0(await fixture('platform-export-memories.json')).items).toEqual([
      {
        at: { record: 1 },
        item: {
          content: 'Leads the API redesign, targeting a Q2 launch',
          category: 'project',
          createdAt: '2025-04-01T09:00:00.250+02:00',
        },
      },
      {
        at: { record: 2 },
        item: {
          content: 'Prefers morning meetings and async communication',
          category: 'preference',
        },
      },
    ]);
  });

  test('an export shaped as a profile (mem0’s own example) holds no memories: refused, naming its fields', () => {
    const profile =
      '{\n  "full_name": "John Doe",\n  "current_role": "Senior Software Engineer"\n}';
    expect(() => readMem0(profile)).toThrow(
      'not a mem0 file: an object with no list of memories (results, memories or data) and no memory (fields full_name, current_role); expected',
    );
    expect(() => readMem0(`{\n"data": ${profile}}`)).toThrow('(fields full_name, current_role)');
    expect(() => readMem0('{\n  "id": "exp_abc123",\n  "status": "processing"\n}')).toThrow(
      'not a mem0 file: an export whose status is "processing", without its data: get it again once it is completed;',
    );
  });
});

describe('JSON Lines', () => {
  const expected = {
    items: [
      {
        at: { line: 1 },
        item: { content: 'Drinks oat milk', createdAt: '2024-12-24T23:59:59.999-05:00' },
        userId: 'lee',
      },
      {
        at: { line: 3 },
        item: { content: 'Uses vim', createdAt: '2024-12-25T08:00:00.000Z' },
        userId: 'lee',
      },
      {
        at: { line: 6, record: 1 },
        item: {
          content: 'Name is Priya',
          category: 'identity',
          createdAt: '2024-12-27T11:00:00.000+05:30',
        },
        userId: 'priya',
      },
    ],
    skipped: [
      { at: { line: 4 }, reason: 'its created_at is not a date-time: "yesterday"' },
      { at: { line: 5 }, reason: 'no memory text (memory, text or content)' },
      { at: { line: 6, record: 2 }, reason: 'its memory is empty' },
      { at: { line: 7 }, reason: 'not JSON' },
    ],
  };

  test('a record a line, or a whole result on one; blank lines passed over, each line that cannot be read reported', async () => {
    expect(readMem0(await fixture('get-all-lines.jsonl'))).toEqual(expected);
  });

  test('streamed a line at a time, in the file’s order', async () => {
    const entries: Mem0Entry[] = [];
    const lines = createInterface({
      input: createReadStream(fixtureUrl('get-all-lines.jsonl')),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const entry of readMem0Lines(lines)) entries.push(entry);
    expect(entries.map((entry) => positionText(entry.at))).toEqual([
      'line 1',
      'line 3',
      'line 4',
      'line 5',
      'line 6, record 1',
      'line 6, record 2',
      'line 7',
    ]);
    expect(entries.filter((entry) => 'item' in entry)).toEqual(expected.items);
    expect(entries.filter((entry) => 'reason' in entry)).toEqual(expected.skipped);
  });

  test('a line that is JSON but no memory is reported, and the others go on', () => {
    expect(readMem0Line('42', 9)).toEqual([
      { at: { line: 9 }, reason: 'JSON of type number, not a memory' },
    ]);
    expect(readMem0Line('[1, 2]', 2)).toEqual([
      {
        at: { line: 2 },
        reason: 'a list whose items are not memories (no memory, text or content), not a memory',
      },
    ]);
    expect(readMem0Line('{"memory": 7}', 3)).toEqual([
      { at: { line: 3 }, reason: 'its memory is not text' },
    ]);
    expect(readMem0Line('   ', 4)).toEqual([]);
  });
});

test.each([
  'oss-get-all-v1.1.json',
  'oss-get-all-v1.0.json',
  'platform-v2-list.json',
  'platform-export-data.json',
  'get-all-lines.jsonl',
])('%s streamed reads as it does whole', async (name) => {
  const whole = readMem0(await fixture(name));
  const entries: Mem0Entry[] = [];
  for await (const entry of readMem0Lines((await fixture(name)).split('\n'))) entries.push(entry);
  expect({
    items: entries.filter((entry) => 'item' in entry),
    skipped: entries.filter((entry) => 'reason' in entry),
  }).toEqual(whole);
});

const createdAt = (value: unknown) =>
  readMem0Line(JSON.stringify({ memory: 'm', created_at: value }), 1)[0];

test.each([
  ['2024-07-20T10:15:30.123456-07:00', '2024-07-20T10:15:30.123-07:00'],
  // Cut, not rounded: never into the next second.
  ['2024-12-31T23:59:59.999999Z', '2024-12-31T23:59:59.999Z'],
  ['2024-07-20T10:15:30', '2024-07-20T10:15:30.000Z'],
  ['2024-07-20 10:15:30.5', '2024-07-20T10:15:30.500Z'],
  ['2024-07-20T10:15', '2024-07-20T10:15:00.000Z'],
  ['2024-07-20t10:15:30z', '2024-07-20T10:15:30.000Z'],
  ['2024-07-20T10:15:30+0530', '2024-07-20T10:15:30.000+05:30'],
  ['2024-07-20T10:15:30,25+00:00', '2024-07-20T10:15:30.250+00:00'],
  [' 2024-07-20T10:15:30Z ', '2024-07-20T10:15:30.000Z'],
])('created_at %j is %s', (value, expected) => {
  expect(createdAt(value)).toEqual({
    at: { line: 1 },
    item: { content: 'm', createdAt: expected },
  });
});

test.each([
  ['yesterday', '"yesterday"'],
  ['2024-02-30T10:00:00Z', '"2024-02-30T10:00:00Z"'],
  ['2024-07-20T24:00:00Z', '"2024-07-20T24:00:00Z"'],
  ['2024-07-20T10:15:30+25:00', '"2024-07-20T10:15:30+25:00"'],
  ['2024-07-20T10:15:30+05:30:00', '"2024-07-20T10:15:30+05:30:00"'],
  ['2024-07-20', '"2024-07-20"'],
  ['', '""'],
  [1721470530, '1721470530'],
  [{ $date: '2024-07-20' }, '{"$date":"2024-07-20"}'],
])('created_at %j is no date-time: the record is reported', (value, shown) => {
  expect(createdAt(value)).toEqual({
    at: { line: 1 },
    reason: `its created_at is not a date-time: ${shown}`,
  });
});

const categoryOf = (categories: unknown) => {
  const [entry] = readMem0Line(JSON.stringify({ memory: 'm', categories }), 1);
  return entry && 'item' in entry ? entry.item.category : entry;
};

test.each([
  ['personal_details', 'identity'],
  ['professional_details', 'identity'],
  ['user_preferences', 'preference'],
  ['family', 'relationship'],
  ...['identity', 'preference', 'goal', 'project', 'relationship', 'constraint'].map((six) => [
    six,
    six,
  ]),
  ['Preference', 'preference'],
  [' goal ', 'goal'],
  ...[
    'sports',
    'travel',
    'food',
    'music',
    'health',
    'technology',
    'hobbies',
    'fashion',
    'entertainment',
    'milestones',
    'misc',
    'preferences',
    'constructor',
    '',
  ].map((other) => [other, undefined]),
])('mem0 category %j: %s', (name, category) => {
  expect(categoryOf([name])).toBe(category);
});

test('the first category that maps wins; other values than names are passed over', () => {
  expect(categoryOf(['travel', 'family', 'user_preferences'])).toBe('relationship');
  expect(categoryOf([null, 3, 'goal'])).toBe('goal');
  expect(categoryOf(null)).toBeUndefined();
  expect(categoryOf({ name: 'goal' })).toBeUndefined();
});

describe('what is no mem0 file', () => {
  test('text that is no JSON, nor JSON Lines', () => {
    expect(() => readMem0('hello\nworld')).toThrow(NotMem0File);
    expect(() => readMem0('hello\nworld')).toThrow(
      /^not a mem0 file: neither one JSON document nor JSON Lines \(its first line is not JSON by itself\): .+; expected one of mem0's: get_all's result/,
    );
    // A document cut short.
    expect(() => readMem0('{\n  "results": [\n    {"memory": "a"},\n')).toThrow(
      'neither one JSON document nor JSON Lines',
    );
  });

  test('JSON of another shape', () => {
    expect(() => readMem0('{\n  "count": 3\n}')).toThrow(
      'not a mem0 file: an object with no list of memories (results, memories or data) and no memory (fields count); expected one of mem0\'s: get_all\'s result ({"results": [...]}, a list of memories, or a page {"count", "next", "previous", "results"}), an export ({"memories": [...]}, or get_memory_export\'s {"data": ...} around it), or such memories one a line (JSON Lines)',
    );
    expect(() => readMem0('[\n  1,\n  2\n]')).toThrow(
      'not a mem0 file: a list whose items are not memories (no memory, text or content);',
    );
    expect(() => readMem0('{\n  "results": [{"name": "x"}]\n}')).toThrow(
      'not a mem0 file: an object whose results are not memories (no memory, text or content);',
    );
    expect(() => readMem0('"memories"\n')).not.toThrow();
    expect(readMem0('"memories"\n')).toEqual({
      items: [],
      skipped: [{ at: { line: 1 }, reason: 'JSON of type string, not a memory' }],
    });
  });

  test('the error has a stable code; a streamed file throws as it is read', async () => {
    expect(() => readMem0('{\n"a": 1}')).toThrow(
      expect.objectContaining({ name: 'NotMem0File', code: 'not_mem0_file' }),
    );
    const entries = readMem0Lines(['{', '"a": 1}']);
    await expect(entries.next()).rejects.toThrow(NotMem0File);
  });

  test('an empty file holds nothing to import', () => {
    expect(readMem0('')).toEqual({ items: [], skipped: [] });
    expect(readMem0('\n  \n')).toEqual({ items: [], skipped: [] });
  });

  test('in a list, what is no object, or has no usable text, is reported by its place', () => {
    expect(
      readMem0('[\n{"memory": "a"}, 3, {"text": "  "}, {"memory": null, "content": "c"}]'),
    ).toEqual({
      items: [
        { at: { record: 1 }, item: { content: 'a' } },
        { at: { record: 4 }, item: { content: 'c' } },
      ],
      skipped: [
        { at: { record: 2 }, reason: 'not a JSON object' },
        { at: { record: 3 }, reason: 'its text is empty' },
      ],
    });
  });
});
